//go:build !unix

package app

import "os/exec"

// ownGroup: without Unix process groups, cancellation kills the command's
// own process (exec's default).
func ownGroup(*exec.Cmd) {}
