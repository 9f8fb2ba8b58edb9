//go:build !unix

package lsp

import "time"

// processCPU is not measured here.
func processCPU() time.Duration { return 0 }
