package sandbox

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// execUnconfined runs a danger-full-access command for the runner: no
// Landlock, seccomp or namespaces (the user approved running it outside
// the sandbox), only the subreaper the constructor put in place, so that
// its background processes and daemons end with it like a sandboxed
// command's.
func execUnconfined(h helperArgs) int {
	if kind, err := supervisor(); err != nil || kind != supervisorSubreaper {
		if err == nil {
			err = errors.New("no subreaper (the helper must be started as `sandbox --no-namespace ...`)")
		}
		return fail(ExitSetupFailed, fmt.Errorf("starting the process that ends everything the command starts: %w", err))
	}
	if err := os.Chdir(h.policy.Cwd); err != nil {
		return fail(ExitSetupFailed, err)
	}
	path, code, err := lookPath(h.argv[0], os.Getenv("PATH"), h.policy.Cwd)
	if err != nil {
		return fail(code, err)
	}
	err = syscall.Exec(path, h.argv, os.Environ())
	if errors.Is(err, syscall.ENOENT) {
		return fail(ExitNotFound, fmt.Errorf("%s: %w (a missing interpreter?)", h.argv[0], err))
	}
	return fail(ExitNotExecutable, fmt.Errorf("%s: %w", h.argv[0], err))
}

// explainProcesses says for --explain how a command's processes are kept
// from outliving it.
func explainProcesses(line func(string, ...any), pidNamespace bool) {
	if pidNamespace {
		line("processes: the command runs under PID 1 of a PID namespace of its own; when it exits, every")
		line("           process it started ends with it (background jobs, double forks, setsid daemons)")
		line("           /proc is the host's, not remounted: pids and signals (kill -1 included) reach only")
		line("           the namespace, and Landlock and seccomp deny ptrace and /proc/PID/mem of the rest")
	} else {
		line("processes: no PID namespace here; a child subreaper adopts whatever the command leaves running")
		line("           and kills it all when the command exits (background jobs, double forks, setsid daemons)")
	}
	line("           a timeout, an interrupt, or agent-ls exiting by any route (kill -9 included, through")
	line("           the parent-death signal) ends them too")
}
