package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/policy"
)

var (
	probeOnce sync.Once
	probed    Capabilities
)

// Probe reports what the sandbox can enforce here. The kernel is asked
// once per process; NoNamespaceEnv and the cache root's variables are read
// on every call.
func Probe() Capabilities {
	probeOnce.Do(func() {
		probed.LandlockABI = LandlockABI()
		probed.Seccomp, probed.SeccompNote = seccompAvailable()
		probed.UnixSockets, probed.UnixSocketsNote = unixSocketSupport()
		pc := pidsCgroupParent()
		probed.PidsCgroup, probed.PidsCgroupVersion, probed.PidsCgroupNote = pc.parent, pc.version, pc.note
		if pidNS, err := probeNamespaces(); err != nil {
			probed.NamespaceNote = err.Error()
		} else {
			probed.Namespaces, probed.PIDNamespace = true, pidNS
		}
	})
	c := probed
	c.CacheRoot = cacheRootOf(Policy{}, os.Environ())
	if os.Getenv(NoNamespaceEnv) != "" {
		c.Namespaces, c.PIDNamespace = false, false
		c.NamespaceNote = "disabled by " + NoNamespaceEnv
	}
	c.SessionNetwork, c.SessionNetworkNote = sessionNetSupport(c)
	return c
}

// Summary says in one line what the sandbox enforces here, for the agent's
// environment context.
func (c Capabilities) Summary() string {
	if why := c.Unavailable(); why != "" {
		return unavailableSummary(why)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Linux sandbox: Landlock ABI %d limits writes to the writable roots", c.LandlockABI)
	if c.Seccomp {
		b.WriteString("; with the network off, seccomp refuses every socket but Unix stream and seqpacket ones (so socketpairs and pipes to children work")
		b.WriteString(unixSocketSummary(c))
		b.WriteString(")")
		b.WriteString(loopbackSummary(c))
		b.WriteString("; ptrace and io_uring are always refused")
	}
	if c.Namespaces {
		b.WriteString("; .git, .agents and .agent-ls stay read-only through a private mount namespace, as do agent-ls's own config, state, binaries and the programs its config runs, wherever they are")
	} else {
		fmt.Fprintf(&b, "; .git, .agents and .agent-ls are NOT protected inside writable roots (no user namespace: %s), and a writable root that holds agent-ls's own config, state, binaries or the programs its config runs is read-only", c.NamespaceNote)
	}
	b.WriteString("; background processes and daemons a command starts end with it")
	fmt.Fprintf(&b, "; %s", processLimitSummary(c))
	b.WriteString("; set-user-ID and set-group-ID files cannot be made (set-group-ID directories can)")
	if c.CacheRoot != "" {
		fmt.Fprintf(&b, "; in workspace-write mode commands keep HOME but get their own writable toolchain caches under %s (GOCACHE, PIP_CACHE_DIR, npm_config_cache, XDG_CACHE_HOME), while the user's own build caches and the downloaded modules (GOMODCACHE, ~/.cargo/registry) are read-only, so with the network off only dependencies already downloaded can be used", c.CacheRoot)
	}
	b.WriteString(".")
	return b.String()
}

// Explain describes in plain words what a command run under p may and may
// not do on this machine.
func Explain(p Policy, c Capabilities) string {
	var b strings.Builder
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	mode := p.mode()
	line("mode: %s", mode)
	line("project root: %s (the command runs in %s; that only chooses where, never what is writable)", p.root(), p.Cwd)
	if mode == DangerFullAccess {
		line("no sandbox: the command runs with the agent's own rights, network included")
		line("processes: a child subreaper still ends whatever the command leaves running when it exits")
		return b.String()
	}
	if why := c.Unavailable(); why != "" {
		explainUnavailable(line, why)
	}
	if c.LandlockABI < 1 {
		line("landlock: NOT available on this kernel; sandboxed commands are refused (never run unconfined)")
	} else {
		line("landlock: ABI %d", c.LandlockABI)
	}
	writable := explainWritable(line, p, c)
	explainSeccomp(line, p, c)
	if c.LandlockABI >= 6 {
		line("signals: only to processes inside the sandbox")
	}
	line("privileges: no_new_privs, no capabilities (setuid and file capabilities grant nothing)")
	explainSetID(line, p, c)
	explainProcesses(line, c.PIDNamespace && !p.NoNamespace)
	explainProcessLimit(line, p, c)
	explainProtected(line, p, c, writable)
	return b.String()
}

// explainWritable says for --explain what a command may read and write,
// and returns the writable roots.
func explainWritable(line func(string, ...any), p Policy, c Capabilities) []string {
	line("readable and executable: the whole filesystem")
	if len(p.Hidden) > 0 && c.Namespaces && !p.NoNamespace {
		line("          but %s, hidden (an empty read-only folder in its place)", strings.Join(p.Hidden, " "))
	} else if len(p.Hidden) > 0 {
		line("          %s too: NOT hidden without a mount namespace", strings.Join(p.Hidden, " "))
	}
	writable := p.writableRoots(os.Getenv("TMPDIR"))
	if len(writable) == 0 {
		line("writable: nothing but %s and /dev/pts", strings.Join(devFiles, " "))
		return writable
	}
	line("writable: %s", strings.Join(writable, " "))
	line("          plus %s and /dev/pts", strings.Join(devFiles, " "))
	explainTempExclusions(line, p, writable)
	if c.Namespaces && !p.NoNamespace {
		line("          and a private /dev/shm, not shared with the host")
	}
	explainCaches(line, p, os.Environ())
	return writable
}

// explainSeccomp says for --explain what the seccomp filter denies, the
// network first.
func explainSeccomp(line func(string, ...any), p Policy, c Capabilities) {
	if !c.Seccomp {
		line("seccomp: NOT available (%s); sandboxed commands are refused", c.SeccompNote)
		return
	}
	line("seccomp: available")
	if p.Network {
		line("network: on; seccomp still denies %s, TIOCSTI", strings.Join(alwaysDenied, " "))
		return
	}
	denied := offlineDenied
	if c.UnixSockets {
		denied = []string{"connect and bind (but see unix sockets below)"}
	}
	line("network: off; seccomp denies %s, %s, TIOCSTI,", strings.Join(denied, " "), strings.Join(alwaysDenied, " "))
	if c.SessionNetwork && !p.NoNamespace {
		line("         every socket but Unix stream and seqpacket ones (no datagram sockets)")
		line("         and, in a session's loopback network (below), TCP and UDP ones,")
	} else {
		line("         every socket but Unix stream and seqpacket ones (no datagram sockets),")
	}
	line("         and sendto with an address; sockets the command holds (socketpairs")
	line("         to its children) keep send, recv, sendmsg, recvmsg and socket options")
	if c.LandlockABI >= 4 {
		line("         Landlock also denies TCP bind and connect (but in a session's loopback network)")
	}
	if c.LandlockABI >= 6 {
		line("         and abstract Unix sockets outside the sandbox")
	}
	explainUnixSockets(line, p, c)
	explainLoopback(line, p, c)
}

// explainProtected says for --explain which paths stay read-only inside
// the writable roots, and how.
func explainProtected(line func(string, ...any), p Policy, c Capabilities, writable []string) {
	roots := p.projectRoots()
	switch {
	case len(roots) == 0:
	case c.Namespaces && !p.NoNamespace:
		explainProtectedPaths(line, p, writable)
	default:
		note := c.NamespaceNote
		if p.NoNamespace {
			note = "disabled by the policy"
		}
		line("protected paths: NOT enforced; %s under %s are writable like the rest of the roots", strings.Join(ProtectedNames, ", "), strings.Join(roots, " "))
		line("  (Landlock alone cannot make a read-only hole in a writable tree; user namespaces are unavailable: %s)", note)
	}
	if !(c.Namespaces && !p.NoNamespace) {
		for _, r := range ownReadOnlyRoots(ownPaths(p, ""), writable) {
			line("read-only: %s (it holds agent-ls's own files, which only a mount namespace could keep read-only in it)", r)
		}
	}
}

// explainProtectedPaths lists for --explain the paths the mount namespace
// keeps read-only: the protected names, placeholders for the missing
// ones, and agent-ls's own files.
func explainProtectedPaths(line func(string, ...any), p Policy, writable []string) {
	line("protected (read-only inside the writable roots, through a private mount namespace):")
	placeholders := false
	for _, pp := range p.protectedPaths(os.Getenv("TMPDIR")) {
		if pp.missing {
			line("  %s (missing: a placeholder is mounted over while a command runs, so it cannot be created)", pp.path)
			placeholders = true
		} else {
			line("  %s", pp.path)
		}
	}
	if placeholders {
		line("placeholders are shared by every agent-ls process in the folder and removed when the last")
		line("  command using them ends; after a kill -9, by the next agent-ls start there")
	}
	if own := ownPathsIn(ownPaths(p, ""), writable, false); len(own) > 0 {
		line("agent-ls's own files (read-only inside the writable roots, and the folders above them cannot be moved):")
		for _, o := range own {
			line("  %s", o.path)
		}
	}
}

// explainTempExclusions says for --explain which temporary directories
// the policy keeps read-only: those it excludes that no other writable
// root holds.
func explainTempExclusions(line func(string, ...any), p Policy, writable []string) {
	readOnly := func(dir string) bool {
		real, err := policy.Resolve(filepath.Clean(dir))
		return err == nil && !policy.Under(real, writable)
	}
	if p.ExcludeSlashTmp && readOnly("/tmp") {
		line("          but not /tmp (exclude_slash_tmp): read-only, like the rest of the filesystem")
	}
	if tmpdir := os.Getenv("TMPDIR"); p.ExcludeTmpdirEnvVar && filepath.IsAbs(tmpdir) && readOnly(tmpdir) {
		line("          but not $TMPDIR, %s (exclude_tmpdir_env_var): read-only", tmpdir)
	}
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
