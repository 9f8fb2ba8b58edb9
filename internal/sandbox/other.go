//go:build !linux

package sandbox

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"
)

// Outside Linux agent-ls has no sandbox: Probe says so, the helper
// refuses every sandboxed command, and Command runs only what is to run
// unconfined (danger-full-access), which the agent does only with the
// user's approval (or --dangerously-bypass-sandbox). Such a command runs
// directly, in a process group of its own (a new process group on
// Windows) that a timeout, an interrupt or Shutdown kills.

// Exit codes of the helper itself, as on Linux.
const (
	ExitSetupFailed   = 125
	ExitNotExecutable = 126
	ExitNotFound      = 127
)

// ErrNotFound is the error for a program that is nowhere on PATH.
var ErrNotFound = exec.ErrNotFound

// errNoSandbox is why a sandboxed command cannot run here.
var errNoSandbox = errors.New("agent-ls has no sandbox on " + runtime.GOOS)

// Probe reports that no sandbox is available here.
func Probe() Capabilities {
	return Capabilities{Unsupported: errNoSandbox.Error()}
}

// LandlockABI is 0: Landlock is Linux's.
func LandlockABI() int { return 0 }

// Summary says in one line that commands run unconfined here.
func (c Capabilities) Summary() string { return unavailableSummary(c.Unavailable()) }

// Explain describes what a command run under p may do here: anything
// the user may.
func Explain(p Policy, c Capabilities) string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	line("mode: %s", p.mode())
	line("project root: %s (the command runs in %s)", p.root(), p.Cwd)
	explainUnavailable(line, c.Unavailable())
	line("processes: an approved command runs in a process group of its own, which a timeout, an")
	line("           interrupt or agent-ls stopping kills; a process that leaves the group survives")
	return b.String()
}

// RemovePlaceholders has nothing to do here: placeholders exist only for
// the Linux mount namespace.
func RemovePlaceholders(Policy) error { return nil }

// LikelyDenied is false: nothing runs sandboxed here, so nothing is denied
// by a sandbox.
func LikelyDenied(int, []byte, []byte, bool) bool { return false }

var otherUsage = fmt.Sprintf("Usage: agent-ls sandbox --explain [flags]\n\n%v: commands cannot run sandboxed.\n\nFlags:\n", errNoSandbox)

// Help writes the help of agent-ls sandbox to w, its flags listed by
// flags (flag.FlagSet.PrintDefaults, or agent-ls's own listing).
func Help(w io.Writer, flags func(io.Writer, *flag.FlagSet)) {
	fs, _, _ := helperFlags(&Policy{})
	fmt.Fprint(w, otherUsage)
	flags(w, fs)
}

// helperFlags is the flag set of agent-ls sandbox, writing into p.
func helperFlags(p *Policy) (fs *flag.FlagSet, mode *string, explain *bool) {
	fs = flag.NewFlagSet("agent-ls sandbox", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	mode = fs.String("mode", string(WorkspaceWrite), "`MODE`: read-only or workspace-write")
	fs.StringVar(&p.Root, "root", "", "the project root `DIR`")
	fs.StringVar(&p.Cwd, "cwd", "", "the `DIR` to run in")
	fs.Func("writable", "extra writable root `DIR`", func(s string) error {
		p.WritableRoots = append(p.WritableRoots, s)
		return nil
	})
	fs.BoolVar(&p.Network, "network", false, "allow network sockets")
	fs.StringVar(&p.CacheRoot, "cache-root", "", "a `DIR` for the command's own toolchain caches")
	fs.BoolVar(&p.ExcludeSlashTmp, "exclude-slash-tmp", false, "keep /tmp read-only")
	fs.BoolVar(&p.ExcludeTmpdirEnvVar, "exclude-tmpdir-env-var", false, "keep $TMPDIR read-only")
	explain = fs.Bool("explain", false, "print what the sandbox enforces here, then exit")
	return fs, mode, explain
}

// Main is `agent-ls sandbox`: --explain says that there is no sandbox
// here; running a command is refused, never done unconfined.
func Main(args []string) int {
	var p Policy
	fs, mode, explain := helperFlags(&p)
	fs.Usage = func() {
		fmt.Print(otherUsage)
		fs.SetOutput(os.Stdout)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); errors.Is(err, flag.ErrHelp) {
		return 0
	} else if err != nil {
		fmt.Fprintf(os.Stderr, "agent-ls sandbox: %v (see agent-ls sandbox --help)\n", err)
		return ExitSetupFailed
	}
	p.Mode = SandboxMode(*mode)
	if p.Cwd == "" {
		p.Cwd, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(p.Cwd); err == nil {
		p.Cwd = abs
	}
	if *explain {
		fmt.Print(Explain(p, Probe()))
		return 0
	}
	fmt.Fprintf(os.Stderr, "agent-ls sandbox: %v; refusing to run the command unconfined\n", errNoSandbox)
	return ExitSetupFailed
}

// Cmd is the exec.Cmd of a command to run under a policy; always Wait for
// a started Cmd.
type Cmd struct {
	*exec.Cmd
	live liveEntry
}

// Command builds the Cmd that runs argv under policy p. Here only
// danger-full-access commands can run, directly and in a process group of
// their own; any other mode is refused, never run unconfined. helperPath
// is not used. env is the command's complete environment (nil inherits
// this process's).
func Command(ctx context.Context, p Policy, argv []string, env []string, helperPath string) (*Cmd, error) {
	if len(argv) == 0 {
		return nil, errors.New("sandbox: empty command")
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.mode() != DangerFullAccess {
		return nil, fmt.Errorf("sandbox: %w; refusing to run the command unconfined", errNoSandbox)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = p.Cwd, env
	newProcessGroup(cmd)
	c := &Cmd{Cmd: cmd}
	cmd.Cancel = func() error { return KillGroup(c) }
	cmd.WaitDelay = 5 * time.Second
	return c, nil
}

// Start starts the command.
func (c *Cmd) Start() error {
	if err := c.Cmd.Start(); err != nil {
		return err
	}
	running.add(c)
	return nil
}

// Wait waits for the command.
func (c *Cmd) Wait() error {
	defer c.done()
	return c.Cmd.Wait()
}

// PlaceholderTime is 0: there are no placeholders here.
func (c *Cmd) PlaceholderTime() time.Duration { return 0 }

func (c *Cmd) done() { running.remove(c) }

// sessionNet is the loopback network of a session, which only Linux has.
type sessionNet struct{}

func (*sessionNet) close() {}
