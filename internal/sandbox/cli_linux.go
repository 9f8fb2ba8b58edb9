package sandbox

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// runFromCLI serves `agent-ls sandbox` typed by a person (or run by a
// script) rather than started by the runner. It starts a second helper the
// way the runner does (inside user, mount and PID namespaces where they
// work, so the protected paths hold here too; under a subreaper
// elsewhere), so nothing the command starts outlives it, and waits for
// it. It stays in the terminal's process group so job control and Ctrl-C
// reach the command directly.
func runFromCLI(h helperArgs) int {
	// Asking the kernel costs a process; --no-namespace needs no answer.
	if !h.policy.NoNamespace && !Probe().Namespaces {
		h.policy.NoNamespace = true
	}
	self, err := os.Executable()
	if err != nil {
		return fail(ExitSetupFailed, err)
	}
	cmd, err := command(context.Background(), h.policy, h.argv, os.Environ(), self)
	if err != nil {
		return fail(ExitSetupFailed, err)
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	// The terminal sends SIGINT and SIGQUIT to the whole foreground group,
	// the child included; what only this process receives is passed on
	// (SIGTERM makes the helper end the command and all it started).
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGINT, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigs)
	if err := cmd.Start(); err != nil {
		return fail(ExitSetupFailed, err)
	}
	go func() {
		for s := range sigs {
			if s == syscall.SIGTERM || s == syscall.SIGHUP {
				_ = cmd.Process.Signal(s)
			}
		}
	}()
	err = cmd.Wait()
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		if ws, ok := exitErr.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exitErr.ExitCode()
	}
	if err != nil {
		return fail(ExitSetupFailed, err)
	}
	return 0
}
