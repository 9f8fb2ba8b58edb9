//go:build !unix

package mcp

import "os/exec"

func setGroup(*exec.Cmd) {}

// killGroup kills the server's process.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}
