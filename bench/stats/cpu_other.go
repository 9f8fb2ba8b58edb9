//go:build !unix

package stats

import "time"

// SelfCPU is 0 where the process's CPU time is not read.
func SelfCPU() time.Duration { return 0 }
