//go:build unix && !linux

package sandbox

import (
	"errors"
	"os/exec"
	"syscall"
)

// newProcessGroup starts the command in a new session: its own process
// group, without a controlling terminal.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
}

// KillGroup ends a command started by Command and every process still in
// its process group. A command that has not started or already went away
// is not an error.
func KillGroup(c *Cmd) error {
	if c == nil || c.Cmd == nil || c.Process == nil {
		return nil
	}
	err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}
