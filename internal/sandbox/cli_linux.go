package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"

	"golang.org/x/sys/unix"
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
	if !cmd.useNS {
		// Nothing to take down afterwards: become the helper.
		return execHelper(cmd)
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

// execHelper replaces this process with the helper of cmd, which has no
// placeholders to take down when it ends: the plan and the descriptors it
// names go to descriptors 3 and up, where the helper looks for them.
func execHelper(cmd *Cmd) int {
	files, err := cmd.prepare()
	if err != nil {
		return fail(ExitSetupFailed, err)
	}
	// Move them above any descriptor they could land on, then into place.
	high := make([]int, len(files))
	for i, f := range files {
		if high[i], err = unix.FcntlInt(f.Fd(), unix.F_DUPFD_CLOEXEC, 100); err != nil {
			return fail(ExitSetupFailed, fmt.Errorf("passing the plan: %w", err))
		}
	}
	for i, fd := range high {
		if err := unix.Dup3(fd, 3+i, 0); err != nil {
			return fail(ExitSetupFailed, fmt.Errorf("passing the plan: %w", err))
		}
	}
	err = syscall.Exec(cmd.Path, cmd.Args, cmd.Env)
	return fail(ExitSetupFailed, fmt.Errorf("starting the helper %s: %w", cmd.Path, err))
}
