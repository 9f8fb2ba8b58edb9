package sandbox

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// newProcessGroup starts the command in a new process group, so that a
// Ctrl-C meant for agent-ls does not reach it.
func newProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: syscall.CREATE_NEW_PROCESS_GROUP}
}

// KillGroup ends a command started by Command. Windows has no signal for
// a process group: the command's own process is killed, and a child it
// started that outlives it is not. A command that has not started or
// already went away is not an error.
func KillGroup(c *Cmd) error {
	if c == nil || c.Cmd == nil || c.Process == nil {
		return nil
	}
	err := c.Process.Kill()
	if errors.Is(err, os.ErrProcessDone) {
		return nil
	}
	return err
}
