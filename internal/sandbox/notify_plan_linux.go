package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// unixSocketRoots are the directories below which a command with the
// network off may bind Unix sockets and connect to them, through the
// supervisor (notify_linux.c); nil when it may nowhere, and then the filter
// denies connect and bind outright as before. In workspace-write mode they
// are the project root and the configured writable roots, resolved, but
// never a root that holds or lies in /tmp, $TMPDIR, $XDG_RUNTIME_DIR or
// the cache root, where host services keep their sockets (the project
// root itself counts wherever it is, /tmp included; not when it holds
// them, as a project rooted at the home directory would). Read-only mode
// gets none: bind makes a file.
//
// With p.AllowProjectSockets the project root, when it is one of them,
// follows once more marked with a leading '+': below it the supervisor
// connects to any socket, not only those the session's commands bound.
func unixSocketRoots(p Policy, b *policy.Boundary, env []string, cacheRoot *os.File) []string {
	if ok, _ := unixSocketSupport(); !ok {
		return nil
	}
	roots := socketRoots(p, b, env, cacheRoot)
	if project := projectSocketRoot(p, b, roots); project != "" {
		roots = append(roots, "+"+project)
	}
	return roots
}

// projectSocketRoot is the project root, resolved, when p allows any
// socket below it to be reached and it is one of the socket roots; ""
// otherwise.
func projectSocketRoot(p Policy, b *policy.Boundary, roots []string) string {
	if !p.AllowProjectSockets {
		return ""
	}
	real, err := policy.Resolve(b.Root())
	if err != nil || !slices.Contains(roots, real) {
		return ""
	}
	return real
}

// socketRoots is unixSocketRoots whether or not this machine can enforce
// them.
func socketRoots(p Policy, b *policy.Boundary, env []string, cacheRoot *os.File) []string {
	if p.Network || p.mode() != WorkspaceWrite {
		return nil
	}
	var hosts []string
	tmpdir, _ := lookupEnv(env, "TMPDIR")
	runtimeDir, _ := lookupEnv(env, "XDG_RUNTIME_DIR")
	cache := cacheRootOf(p, env)
	if cacheRoot != nil {
		cache = cacheRoot.Name()
	}
	// All of /tmp and $TMPDIR, excluded from the writable roots or not:
	// host services keep their sockets there either way.
	for _, d := range append(policy.TempRoots(tmpdir), runtimeDir, cache) {
		if d == "" || !filepath.IsAbs(d) {
			continue
		}
		if r, err := policy.Resolve(filepath.Clean(d)); err == nil {
			hosts = append(hosts, r)
		} else {
			hosts = append(hosts, filepath.Clean(d))
		}
	}
	var roots []string
	for i, r := range b.ProjectRoots() {
		real, err := policy.Resolve(r)
		if err != nil {
			continue
		}
		holds := false
		for _, h := range hosts {
			if policy.Under(h, []string{real}) || (i > 0 && policy.Under(real, []string{h})) {
				holds = true
			}
		}
		if !holds {
			roots = append(roots, real)
		}
	}
	return roots
}

var unixSocketProbe struct {
	once sync.Once
	ok   bool
	note string
}

// unixSocketSupport reports whether the supervisor can decide connect and
// bind here: the kernel has seccomp user notifications (the sizes of its
// structures can be asked, 5.0), pidfd_getfd (5.6) and libseccomp can
// compile a notifying rule (API level 5, libseccomp 2.5). Where not, the
// note says what is missing, and connect and bind stay denied.
func unixSocketSupport() (bool, string) {
	p := &unixSocketProbe
	p.once.Do(func() {
		p.ok, p.note = probeUnixSockets()
	})
	return p.ok, p.note
}

func probeUnixSockets() (bool, string) {
	var sizes [3]uint16
	const getNotifSizes = 3 // SECCOMP_GET_NOTIF_SIZES
	if _, _, e := unix.Syscall(unix.SYS_SECCOMP, getNotifSizes, 0, uintptr(unsafe.Pointer(&sizes[0]))); e != 0 {
		return false, "the kernel has no seccomp user notifications (" + e.Error() + ")"
	}
	if _, _, e := unix.Syscall(unix.SYS_PIDFD_GETFD, ^uintptr(0), ^uintptr(0), 0); errors.Is(e, unix.ENOSYS) {
		return false, "the kernel has no pidfd_getfd (Linux 5.6)"
	}
	fd, _, e := unix.Syscall(unix.SYS_PIDFD_OPEN, uintptr(os.Getpid()), 0, 0)
	if e != 0 {
		return false, "the kernel has no pidfd_open (Linux 5.3): " + e.Error()
	}
	unix.Close(int(fd))
	if api, err := seccompAPI(); err != nil || api < 5 {
		return false, "libseccomp cannot compile notifying rules (API level 5, libseccomp 2.5)"
	}
	return true, ""
}

// explainUnixSockets says, for --explain, where a command with the network
// off may serve and reach Unix sockets.
func explainUnixSockets(line func(string, ...any), p Policy, c Capabilities) {
	if p.Network {
		return
	}
	if !c.UnixSockets {
		line("unix sockets: connect, bind, listen and accept denied everywhere (%s)", c.UnixSocketsNote)
		return
	}
	if p.mode() != WorkspaceWrite {
		line("unix sockets: connect, bind, listen and accept denied everywhere (read-only mode: a bind makes a file)")
		return
	}
	var roots []string
	project := ""
	if b, err := p.boundary(os.Getenv("TMPDIR")); err == nil {
		roots = socketRoots(p, b, os.Environ(), nil)
		project = projectSocketRoot(p, b, roots)
	}
	if len(roots) == 0 {
		line("unix sockets: connect, bind, listen and accept denied everywhere (no project root that holds no host sockets)")
		return
	}
	line("unix sockets: bind and connect by absolute path only below %s", strings.Join(roots, " "))
	line("         (symlinks resolved; decided by the supervisor, which makes the call itself);")
	line("         listen and accept allowed; never in /tmp, $TMPDIR, $XDG_RUNTIME_DIR or the cache")
	line("         root unless the project root is there; abstract names and relative paths refused;")
	line("         connect only to a socket a sandboxed command of the same session bound (its")
	line("         device, inode and birth time recorded), so no socket made outside the sandbox")
	line("         is reached, by its path, a symlink, a hard link, a rename or a bind mount;")
	line("         commands cannot make, link or rename socket files themselves (Landlock)")
	if project != "" {
		line("         allow_project_sockets: also any socket below %s, whoever made it", project)
	}
	if !pidfdThreads() {
		line("         this kernel (before Linux 6.9) has no PIDFD_THREAD: a call from any thread but a")
		line("         process's first is refused, since the supervisor cannot take its socket")
	}
}

// pidfdThreads reports whether pidfd_open takes PIDFD_THREAD (Linux 6.9),
// which the supervisor needs to take the socket of a call made by any
// thread but a process's first.
func pidfdThreads() bool {
	const pidfdThread = unix.O_EXCL
	fd, _, e := unix.Syscall(unix.SYS_PIDFD_OPEN, uintptr(unix.Gettid()), pidfdThread, 0)
	if e != 0 {
		return false
	}
	unix.Close(int(fd))
	return true
}

// unixSocketSummary is the Unix socket part of Capabilities.Summary.
func unixSocketSummary(c Capabilities) string {
	if !c.UnixSockets {
		return fmt.Sprintf("; connect, bind, listen and datagram sockets do not work (Unix socket servers are denied here too: %s), so no host service such as Docker, an SSH agent or D-Bus is reachable", c.UnixSocketsNote)
	}
	return "; Unix socket servers may bind, listen, accept and be connected to by absolute path inside the project root and the configured writable roots (not /tmp or $TMPDIR unless the project is there), a client reaching only sockets that sandboxed commands of this session bound (not sockets made outside the sandbox, nor sockets linked or moved into the workspace), while connect, bind, listen and datagram sockets do not work anywhere else, so no host service such as Docker, an SSH agent, tmux or D-Bus is reachable"
}
