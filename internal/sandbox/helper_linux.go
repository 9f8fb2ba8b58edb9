package sandbox

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// Exit codes of the helper itself; anything else is the command's.
const (
	ExitSetupFailed   = 125 // bad flags, or the sandbox could not be set up
	ExitNotExecutable = 126
	ExitNotFound      = 127
)

const helperPrefix = "agent-ls sandbox: "

const helperUsage = `Usage: agent-ls sandbox [flags] -- CMD ARGS...
       agent-ls sandbox --explain [flags]

Runs CMD confined by Landlock (the filesystem is readable, only the writable
roots are writable), seccomp (without --network: no sockets but Unix stream
and seqpacket ones, which connect and bind only by absolute path inside the
project root and the --writable roots, where the kernel allows that check;
always: no ptrace, process_vm_* or io_uring) and no_new_privs, with no
capabilities.
In workspace-write mode the writable roots are the project root (--root,
default the cwd), each --writable DIR, /tmp (unless --exclude-slash-tmp),
$TMPDIR (unless --exclude-tmpdir-env-var) and the cache root, where
GOCACHE, PIP_CACHE_DIR, npm_config_cache and XDG_CACHE_HOME point (the
user's own caches stay read-only); --cwd only says where the command
runs. Where user namespaces are available, .git, .agents and .agent-ls at
the top of the project root and of each --writable DIR stay read-only, and
the command gets a private, writable /dev/shm. Everything the command
starts ends when it exits (a PID namespace of its own, or a subreaper);
SIGTERM ends it all at once, SIGINT, SIGHUP and SIGQUIT are passed on to
the command. --explain prints what this machine enforces.

Flags:
`

type helperArgs struct {
	policy  Policy
	argv    []string
	explain bool
}

// Help writes the help of agent-ls sandbox to w, its flags listed by
// flags (flag.FlagSet.PrintDefaults, or agent-ls's own listing).
func Help(w io.Writer, flags func(io.Writer, *flag.FlagSet)) {
	var h helperArgs
	fs, _ := helperFlags(&h)
	fmt.Fprint(w, helperUsage)
	flags(w, fs)
}

// helperFlags is the flag set of agent-ls sandbox, writing into h; mode
// receives --mode.
func helperFlags(h *helperArgs) (fs *flag.FlagSet, mode *string) {
	fs = flag.NewFlagSet("agent-ls sandbox", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // errors are reported once, prefixed, by Main
	mode = fs.String("mode", string(WorkspaceWrite), "`MODE`: read-only or workspace-write")
	fs.StringVar(&h.policy.Root, "root", "", "the project root `DIR`: writable, its .git, .agents, .agent-ls protected (default: the cwd)")
	fs.StringVar(&h.policy.Cwd, "cwd", "", "the `DIR` to run in (default: the current one)")
	fs.Func("writable", "extra writable root `DIR` (repeatable; workspace-write only)", func(s string) error {
		h.policy.WritableRoots = append(h.policy.WritableRoots, s)
		return nil
	})
	fs.BoolVar(&h.policy.Network, "network", false, "allow network sockets")
	fs.StringVar(&h.policy.CacheRoot, "cache-root", "", "a `DIR` for the command's own toolchain caches (default $XDG_CACHE_HOME/agent-ls/sandbox)")
	fs.BoolVar(&h.policy.ExcludeSlashTmp, "exclude-slash-tmp", false, "keep /tmp read-only in workspace-write mode")
	fs.BoolVar(&h.policy.ExcludeTmpdirEnvVar, "exclude-tmpdir-env-var", false, "keep $TMPDIR read-only in workspace-write mode")
	fs.BoolVar(&h.policy.AllowProjectSockets, "allow-project-sockets", false, "with the network off, let the command connect to any Unix socket below the project root, also one made outside the sandbox")
	fs.BoolVar(&h.explain, "explain", false, "print what the sandbox allows and denies here, then exit")
	fs.BoolVar(&h.policy.NoNamespace, "no-namespace", false, "Landlock and seccomp only: do not protect .git, .agents, .agent-ls")
	return fs, mode
}

func parseHelperArgs(args []string, stdout io.Writer) (helperArgs, error) {
	var h helperArgs
	fs, mode := helperFlags(&h)
	fs.Usage = func() {
		fs.SetOutput(stdout)
		fmt.Fprint(stdout, helperUsage)
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			err = fmt.Errorf("%w (see agent-ls sandbox --help)", err)
		}
		return h, err
	}
	h.argv = fs.Args()
	p := &h.policy
	p.Mode = SandboxMode(*mode)
	if p.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return h, fmt.Errorf("current directory: %w", err)
		}
		p.Cwd = wd
	}
	if abs, err := filepath.Abs(p.Cwd); err == nil {
		p.Cwd = abs
	}
	if p.Root != "" {
		if abs, err := filepath.Abs(p.Root); err == nil {
			p.Root = abs
		}
	}
	switch p.mode() {
	case ReadOnly, WorkspaceWrite:
	case DangerFullAccess:
		return h, errors.New("danger-full-access runs without the sandbox; run the command directly")
	default:
		return h, fmt.Errorf("unknown --mode %q (want %s or %s)", p.Mode, ReadOnly, WorkspaceWrite)
	}
	if p.mode() == ReadOnly && len(p.WritableRoots) > 0 {
		return h, errors.New("--writable needs --mode workspace-write")
	}
	if !h.explain && len(h.argv) == 0 {
		return h, errors.New("no command given (usage: agent-ls sandbox [flags] -- CMD ARGS...)")
	}
	return h, nil
}

// Main is `agent-ls sandbox`; args are the words after "sandbox". It
// runs the command the way the agent does (see Command) and returns its
// exit code, or one of ExitSetupFailed and friends. The runner's own form,
// `sandbox --in-namespace|--no-namespace --plan`, never gets here: the
// helper's constructor carries the plan out before Go starts.
func Main(args []string) int {
	if len(args) > 1 && args[1] == "--plan" {
		return fail(ExitSetupFailed, errors.New("this build of the helper cannot carry out a plan (it needs cgo on Linux)"))
	}
	h, err := parseHelperArgs(args, os.Stdout)
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	if err != nil {
		return fail(ExitSetupFailed, err)
	}
	if h.explain {
		fmt.Print(Explain(h.policy, Probe()))
		return 0
	}
	return runFromCLI(h)
}

func fail(code int, err error) int {
	fmt.Fprintf(os.Stderr, "%s%v\n", helperPrefix, err)
	return code
}

// lookPath finds file like a shell does with the given PATH, relative
// entries taken against dir. The code is the exit status to report when it
// fails: 127 when nothing is found, 126 when what is found cannot run.
func lookPath(file, pathEnv, dir string) (string, int, error) {
	if strings.Contains(file, "/") {
		p := file
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := executable(p); err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return "", ExitNotFound, fmt.Errorf("%s: no such file or directory", file)
			}
			return "", ExitNotExecutable, fmt.Errorf("%s: %w", file, err)
		}
		return p, 0, nil
	}
	var firstErr error
	for _, d := range filepath.SplitList(pathEnv) {
		if d == "" {
			d = "."
		}
		p := filepath.Join(d, file)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		err := executable(p)
		if err == nil {
			return p, 0, nil
		}
		if firstErr == nil && !errors.Is(err, os.ErrNotExist) {
			firstErr = fmt.Errorf("%s: %w", p, err)
		}
	}
	if firstErr != nil {
		return "", ExitNotExecutable, firstErr
	}
	return "", ExitNotFound, fmt.Errorf("%s: %w", file, ErrNotFound)
}

// ErrNotFound is the error for a program that is nowhere on PATH.
var ErrNotFound = errors.New("command not found")

func executable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return errors.New("is a directory")
	}
	if err := unix.Access(path, unix.X_OK); err != nil {
		return errors.New("permission denied (not executable)")
	}
	return nil
}
