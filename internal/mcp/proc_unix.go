//go:build unix

package mcp

import (
	"os/exec"
	"syscall"
)

// setGroup starts the server in a process group of its own, so that what
// it starts (npx starts node) is stopped with it.
func setGroup(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	setParentDeath(cmd.SysProcAttr)
}

// killGroup kills the server's whole process group.
func killGroup(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
