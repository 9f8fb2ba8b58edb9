package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// Cmd is the exec.Cmd of a command to run under a policy. Use it like an
// exec.Cmd (set Stdin/Stdout/Stderr, Start, Wait); its Start and Wait also
// put up and take down the placeholders that keep missing protected paths
// uncreatable while the command runs, so always Wait for a started Cmd.
type Cmd struct {
	*exec.Cmd
	policy   Policy
	argv     []string
	useNS    bool
	helper   bool // runs through the helper, which tears down on SIGTERM
	release  func()
	setup    time.Duration // spent putting up placeholders
	planTime time.Duration // spent working out the helper's plan
	planned  bool          // the plan is in ExtraFiles
	live     liveEntry
}

// Command builds the Cmd that runs argv under policy p: through the helper
// binary at helperPath (the agent-ls executable, which must route
// `helperPath sandbox ARGS...` to Main); for danger-full-access the helper
// confines nothing but still ends what the command leaves running, and
// without a helperPath the command runs directly. env is the command's
// complete environment (nil inherits this process's, as with exec.Cmd).
// The command starts in a new session, so in
// its own process group and without a controlling terminal. When the
// command exits, times out or is cancelled, or this process dies by any
// route, everything it started ends too (see reaper_linux.c); cancelling ctx
// kills it all. Where Probe finds user
// namespaces (and p.NoNamespace is unset) the helper enters a fresh user
// and mount namespace, which keeps the protected paths read-only.
//
// Command does not start anything; streaming, timeouts and output limits
// are the caller's.
func Command(ctx context.Context, p Policy, argv []string, env []string, helperPath string) (*Cmd, error) {
	c, err := command(ctx, p, argv, env, helperPath)
	if err != nil {
		return nil, err
	}
	// A new session: its own process group, and no controlling terminal
	// to type into or to be stopped by.
	c.SysProcAttr.Setsid = true
	c.Cancel = func() error { return KillGroup(c) }
	if c.WaitDelay == 0 {
		// Should the helper not answer a teardown, Wait kills it anyway.
		c.WaitDelay = 5 * time.Second
	}
	return c, nil
}

func command(ctx context.Context, p Policy, argv []string, env []string, helperPath string) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.mode() == DangerFullAccess && helperPath == "" {
		path, _, err := lookPath(argv[0], searchPath(env), p.Cwd)
		if err != nil {
			return nil, &exec.Error{Name: argv[0], Err: err}
		}
		cmd := exec.CommandContext(ctx, path, argv[1:]...)
		cmd.Args[0] = argv[0]
		cmd.Dir, cmd.Env = p.Cwd, env
		cmd.SysProcAttr = &syscall.SysProcAttr{}
		return &Cmd{Cmd: cmd, policy: p, argv: argv}, nil
	}
	if helperPath == "" {
		return nil, errors.New("sandbox: no helper binary given")
	}
	// Danger-full-access confines nothing, but the helper's subreaper
	// still ends everything the command starts.
	useNS := p.mode() != DangerFullAccess && !p.NoNamespace && Probe().Namespaces
	// agent-ls's own binaries are as much its own as its config.
	p.Own = ownPaths(p, helperPath)
	// The helper's C constructor looks for these two words first: it
	// enters the namespaces and carries out the plan (descriptor 3)
	// before the Go runtime would start. The command's words follow for
	// people reading ps; the plan is what runs.
	args := []string{"sandbox", "--no-namespace", "--plan", "--"}
	if useNS {
		args[1] = "--in-namespace"
	}
	cmd := exec.CommandContext(ctx, helperPath, append(args, argv...)...)
	cmd.Dir, cmd.Env = p.Cwd, env
	// If this process dies, by kill -9 too, the helper tears the command
	// and everything it started down (go's fork code closes the race
	// with a parent that dies before the helper runs). The signal also
	// comes when the OS thread that started the helper exits, which Go
	// does only for a goroutine that ends locked to its thread; nothing
	// that starts commands does that.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
	return &Cmd{Cmd: cmd, policy: p, argv: argv, useNS: useNS, helper: true}, nil
}

// Start puts up the placeholders the command needs, works out the
// helper's plan, then starts it.
func (c *Cmd) Start() error {
	if c.helper && !c.planned {
		files, err := c.prepare()
		if err != nil {
			return err
		}
		defer closeAll(files)
	}
	if err := c.Cmd.Start(); err != nil {
		c.done()
		return err
	}
	running.add(c)
	return nil
}

// prepare puts up the placeholders and works out the helper's plan: the
// command's environment goes to c.Env, and the plan and the descriptors it
// names to c.ExtraFiles (the returned files, for the caller to close once
// the helper started).
func (c *Cmd) prepare() ([]*os.File, error) {
	env := c.Env
	if env == nil {
		env = os.Environ() // the helper inherits ours
	}
	start := time.Now()
	var held []string
	if c.useNS {
		tmpdir, _ := lookupEnv(env, "TMPDIR")
		paths := c.policy.protectedPaths(tmpdir)
		h, release, err := holdPlaceholders(paths)
		if err != nil {
			return nil, fmt.Errorf("sandbox: %w", err)
		}
		held, c.release = h, release
	}
	c.setup = time.Since(start)
	var pl *plan
	if c.policy.mode() == DangerFullAccess {
		pl = unconfinedPlan(c.policy, c.argv, env)
	} else {
		pl, env = buildPlan(c.policy, c.argv, env, held, c.useNS)
		env = c.startProxy(pl, env)
		if pl.pidsDir != "" {
			release := c.release
			c.release = func() {
				pl.removeCgroup()
				if release != nil {
					release()
				}
			}
		}
	}
	f, err := planFile(pl.encode())
	if err != nil {
		pl.close()
		c.done()
		return nil, fmt.Errorf("sandbox: %w", err)
	}
	c.Env = env
	c.ExtraFiles = append([]*os.File{f}, pl.files()...)
	c.planned = true
	c.planTime = time.Since(start) - c.setup
	return c.ExtraFiles, nil
}

func closeAll(files []*os.File) {
	for _, f := range files {
		f.Close()
	}
}

// PlanTime is how long Start spent working out the helper's plan.
func (c *Cmd) PlanTime() time.Duration { return c.planTime }

// PlaceholderTime is how long Start spent putting up placeholders.
func (c *Cmd) PlaceholderTime() time.Duration { return c.setup }

// Wait waits for the command, then takes down its placeholders.
func (c *Cmd) Wait() error {
	defer c.done()
	return c.Cmd.Wait()
}

func (c *Cmd) done() {
	if c.release != nil {
		c.release()
	}
	running.remove(c)
}

// searchPath is the PATH a command's program is looked up on: the
// command's own or, when its environment has none (a shell environment
// policy that inherits nothing), agent-ls's, as execvp falls back to a
// default search path. The command itself still runs without PATH.
func searchPath(env []string) string {
	if p, ok := lookupEnv(env, "PATH"); ok {
		return p
	}
	return os.Getenv("PATH")
}

// lookupEnv finds key in env, the last setting winning as in exec.Cmd.
func lookupEnv(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == key {
			return v, true
		}
	}
	return "", false
}

// KillGroup ends a command started by Command and everything it started:
// a sandboxed command's helper gets SIGTERM, on which it SIGKILLs all of
// it, daemons in other sessions included, and exits once they are gone;
// an unsandboxed command's process group gets SIGKILL. A command that has
// not started or already went away is not an error.
func KillGroup(c *Cmd) error {
	if c == nil || c.Cmd == nil || c.Process == nil {
		return nil
	}
	if c.helper {
		// Signal goes through a pidfd: no other process that got the
		// pid since can be hit. SIGCONT in case the helper was stopped.
		err := c.Process.Signal(syscall.SIGTERM)
		_ = c.Process.Signal(syscall.SIGCONT)
		if errors.Is(err, os.ErrProcessDone) {
			return nil
		}
		return err
	}
	err := syscall.Kill(-c.Process.Pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

var deniedKeywords = [][]byte{
	[]byte("operation not permitted"),
	[]byte("permission denied"),
	[]byte("read-only file system"),
	[]byte("seccomp"),
	[]byte("sandbox"),
	[]byte("landlock"),
	[]byte("failed to write file"),
}

// LikelyDenied guesses whether a failed sandboxed command failed because the
// sandbox refused something, so the agent can offer a rerun without it. It
// follows Codex: no for success or an unsandboxed run; yes when the output
// names a denial; no for exit 2, 126 and 127 otherwise; yes for death by
// SIGSYS. Unlike Codex it does not mistake the helper's own "command not
// found"/"not executable" for a denial, and counts a helper that could not
// set the sandbox up as one.
func LikelyDenied(exitCode int, stdout, stderr []byte, sandboxed bool) bool {
	if !sandboxed || exitCode == 0 {
		return false
	}
	if bytes.HasPrefix(bytes.TrimSpace(stderr), []byte(helperPrefix)) {
		switch exitCode {
		case ExitNotFound, ExitNotExecutable:
			return false
		case ExitSetupFailed:
			return true
		}
	}
	for _, out := range [][]byte{stderr, stdout} {
		lower := bytes.ToLower(out)
		for _, k := range deniedKeywords {
			if bytes.Contains(lower, k) {
				return true
			}
		}
	}
	switch exitCode {
	case 2, ExitNotExecutable, ExitNotFound:
		return false
	}
	return exitCode == 128+int(syscall.SIGSYS)
}
