//go:build unix

package hooks

import (
	"errors"
	"os"
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own, so that a timeout
// ends the hook and everything it started (a pipeline, a forked
// sleeper), and so that a Ctrl-C meant for agent-ls does not reach it.
// The hook keeps the controlling terminal, if any.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	diesWithParent(cmd.SysProcAttr)
	cmd.Cancel = func() error {
		// exec calls Cancel before it reaps the hook, so the group id
		// is still the hook's.
		err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		if errors.Is(err, syscall.ESRCH) {
			return os.ErrProcessDone
		}
		return err
	}
}
