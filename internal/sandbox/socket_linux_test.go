package sandbox

import (
	"errors"
	"fmt"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Socket attacks and the socket work that must keep working with the
// network off.
func init() {
	for name, fn := range map[string]func([]string) error{
		"unix-socket":      unixSocket,
		"unix-socketpair":  unixSocketpair,
		"unix-dgram-send":  unixDgramSend,
		"sendto-address":   sendtoAddress,
		"sendmsg-address":  sendmsgAddress,
		"abstract-connect": abstractConnect,
		"socket-calls":     socketCalls,
		"connect-each":     connectEach,
		// Inside the sandbox the filter refuses connect before Landlock
		// is asked; this one runs unconfined and applies Landlock alone
		// (network off, so abstract sockets are scoped).
		"landlock-only-abstract": func(a []string) error {
			if err := applyLandlock(LandlockABI(), false); err != nil {
				return errors.New("landlock: " + err.Error())
			}
			return abstractConnect(a)
		},
	} {
		attacks[name] = fn
	}
}

var socketTypes = map[string]int{"stream": unix.SOCK_STREAM, "dgram": unix.SOCK_DGRAM, "seqpacket": unix.SOCK_SEQPACKET, "raw": unix.SOCK_RAW}

// unixSocket: socket(AF_UNIX, TYPE|SOCK_CLOEXEC|SOCK_NONBLOCK).
func unixSocket(a []string) error {
	fd, err := unix.Socket(unix.AF_UNIX, socketTypes[a[0]]|unix.SOCK_CLOEXEC|unix.SOCK_NONBLOCK, 0)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// unixSocketpair: socketpair(AF_UNIX, TYPE) and one message across.
func unixSocketpair(a []string) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, socketTypes[a[0]]|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := unix.Send(fds[0], []byte("ping"), 0); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	buf := make([]byte, 4)
	if _, _, err := unix.Recvfrom(fds[1], buf, 0); err != nil || string(buf) != "ping" {
		return fmt.Errorf("recv %q: %w", buf, err)
	}
	return nil
}

// unixDgramSend: a datagram to another process's socket at a path (or
// @abstract name), as a syslog or systemd notify client sends; through
// sendmsg, whose address the filter cannot see.
func unixDgramSend(a []string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Sendmsg(fd, []byte("from the sandbox"), nil, sockaddr(a[0]), 0)
}

// sendtoAddress: sendto with an address on a socket the command holds.
func sendtoAddress(a []string) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, socketTypes[a[0]], 0)
	if err != nil {
		return err
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	return unix.Sendto(fds[0], []byte("from the sandbox"), 0, sockaddr(a[1]))
}

// sendmsgAddress: sendmsg naming another socket, which the filter cannot
// see; on a stream socket the kernel refuses, on a seqpacket one it
// delivers to the peer and ignores the name (the test checks the address
// got nothing). Prints where the message went.
func sendmsgAddress(a []string) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, socketTypes[a[0]], 0)
	if err != nil {
		return err
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := unix.Sendmsg(fds[0], []byte("from the sandbox"), nil, sockaddr(a[1]), 0); err != nil {
		return err
	}
	buf := make([]byte, 64)
	n, _, _ := unix.Recvfrom(fds[1], buf, unix.MSG_DONTWAIT)
	fmt.Printf("the peer received %q\n", buf[:max(n, 0)])
	return nil
}

// abstractConnect: connect to an abstract Unix socket of another process.
func abstractConnect(a []string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	return unix.Connect(fd, sockaddr("@"+a[0]))
}

// socketCalls: what runtimes do with the sockets they hold: options,
// names, shutdown, sendmsg with a descriptor, recvmsg.
func socketCalls(a []string) error {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fds[0])
	defer unix.Close(fds[1])
	if err := unix.SetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_SNDBUF, 1<<16); err != nil {
		return fmt.Errorf("setsockopt: %w", err)
	}
	if _, err := unix.GetsockoptInt(fds[0], unix.SOL_SOCKET, unix.SO_TYPE); err != nil {
		return fmt.Errorf("getsockopt: %w", err)
	}
	if _, err := unix.GetsockoptUcred(fds[1], unix.SOL_SOCKET, unix.SO_PEERCRED); err != nil {
		return fmt.Errorf("SO_PEERCRED: %w", err)
	}
	if _, err := unix.Getsockname(fds[0]); err != nil {
		return fmt.Errorf("getsockname: %w", err)
	}
	if _, err := unix.Getpeername(fds[0]); err != nil {
		return fmt.Errorf("getpeername: %w", err)
	}
	if err := unix.Sendmsg(fds[0], []byte("fd"), unix.UnixRights(0), nil, 0); err != nil {
		return fmt.Errorf("sendmsg: %w", err)
	}
	buf, oob := make([]byte, 2), make([]byte, unix.CmsgSpace(4))
	if _, oobn, _, _, err := unix.Recvmsg(fds[1], buf, oob, 0); err != nil || oobn == 0 {
		return fmt.Errorf("recvmsg (%d bytes of control data): %w", oobn, err)
	}
	return unix.Shutdown(fds[0], unix.SHUT_WR)
}

func sockaddr(name string) *unix.SockaddrUnix {
	if strings.HasPrefix(name, "@") {
		return &unix.SockaddrUnix{Name: "\x00" + name[1:]}
	}
	return &unix.SockaddrUnix{Name: name}
}

// TestUnixSocketRules checks each socket rule of the offline filter: what
// a command's own sockets need works, anything that could address another
// process's socket is refused.
func TestUnixSocketRules(t *testing.T) {
	requireLandlock(t)
	cwd, outside := workspace(t)
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd}
	for _, typ := range []string{"stream", "seqpacket"} {
		mustWork(t, attack(t, p, "unix-socket", typ), typ+" Unix socket")
		mustWork(t, attack(t, p, "unix-socketpair", typ), typ+" socketpair with send and recv")
	}
	mustWork(t, attack(t, p, "socket-calls"), "socket options, names, sendmsg, recvmsg, shutdown on a socketpair")
	for _, typ := range []string{"dgram", "raw"} {
		mustBlockByFilter(t, attack(t, p, "unix-socket", typ), typ+" Unix socket")
		mustBlockByFilter(t, attack(t, p, "unix-socketpair", typ), typ+" socketpair")
	}
	host, _ := listenInbox(t, "unixgram", filepath.Join(outside, "notify.sock"))
	dgram := host.addr
	mustWork(t, unconfined(t, "unix-dgram-send", dgram), "a datagram to the host socket, unconfined")
	if got := host.quietBefore(t); len(got) != 1 {
		t.Fatalf("the host datagram socket received %q from the unconfined sender, want one datagram", got)
	}
	mustBlockByFilter(t, attack(t, p, "unix-dgram-send", dgram), "a datagram to a host socket")
	mustBlockByFilter(t, attack(t, p, "sendto-address", "stream", dgram), "sendto with an address")
	mustBlock(t, attack(t, p, "sendmsg-address", "stream", dgram), "sendmsg naming a host socket on a stream socket")
	r := attack(t, p, "sendmsg-address", "seqpacket", dgram)
	t.Logf("sendmsg naming a host socket on a seqpacket socket: %s", strings.TrimSpace(r.stdout+r.stderr))
	if got := host.quietBefore(t); len(got) > 0 {
		t.Errorf("ESCAPE: the host datagram socket received %q from the sandbox", got)
	}
	with := p
	with.Network = true
	mustWork(t, attack(t, with, "unix-dgram-send", dgram), "a datagram to a host socket with --network")
}

// mustBlockByFilter: refused with EPERM, the filter's answer, not by the
// kernel for some other reason.
func mustBlockByFilter(t *testing.T, r result, why string) {
	t.Helper()
	mustBlock(t, r, why)
	if !strings.Contains(r.stdout, "errno "+strconv.Itoa(int(unix.EPERM))+")") {
		t.Errorf("%s: not refused by the sandbox (want EPERM)\n%v", why, r)
	}
}

// TestHostServicesUnreachable: the sockets of the services a desktop or
// server runs (Docker, an SSH agent, D-Bus, X11, tmux, an editor's
// --listen socket, anything in $XDG_RUNTIME_DIR) cannot be reached with
// the network off, wherever they live, /tmp (a writable root) included,
// by path or by abstract name. Stand-ins listen where each service puts
// its socket; the real ones are tried too when this machine has them.
func TestHostServicesUnreachable(t *testing.T) {
	requireLandlock(t)
	cwd, outside := workspace(t)
	tmp, err := os.MkdirTemp("/tmp", "agent-ls-host-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	runtimeDir := filepath.Join(outside, "run-user")
	uid := strconv.Itoa(os.Getuid())
	standIns := map[string]string{
		"Docker":                     filepath.Join(outside, "docker.sock"),
		"SSH agent (in /tmp)":        filepath.Join(tmp, "ssh-XXXX", "agent.42"),
		"D-Bus session bus":          filepath.Join(runtimeDir, "bus"),
		"X11 (in /tmp)":              filepath.Join(tmp, ".X11-unix", "X42"),
		"X11 abstract":               "@" + filepath.Join(tmp, ".X11-unix", "X42"),
		"tmux (in /tmp)":             filepath.Join(tmp, "tmux-"+uid, "default"),
		"Neovim --listen (in /tmp)":  filepath.Join(tmp, "nvim.42", "0"),
		"VS Code IPC in runtime dir": filepath.Join(runtimeDir, "vscode-ipc-42.sock"),
	}
	if ok, _ := unixSocketSupport(); !ok {
		// Where the supervisor cannot decide, a socket inside the
		// workspace is out of reach too (with it, see
		// TestUnixServerInWorkspace).
		standIns["a listener in the workspace"] = filepath.Join(cwd, "work.sock")
	}
	for name, addr := range standIns {
		if !strings.HasPrefix(addr, "@") {
			if err := os.MkdirAll(filepath.Dir(addr), 0o700); err != nil {
				t.Fatal(err)
			}
		}
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		t.Cleanup(func() { l.Close() })
		go acceptAll(l)
		if r := unconfined(t, "unix-connect", addr); r.code != 0 {
			t.Fatalf("%s: the stand-in is unreachable even unconfined: %v", name, r)
		}
	}
	real := map[string]string{
		"Docker (real)":           "/var/run/docker.sock",
		"SSH agent (real)":        os.Getenv("SSH_AUTH_SOCK"),
		"D-Bus system bus (real)": "/run/dbus/system_bus_socket",
		"X11 :0 (real)":           "/tmp/.X11-unix/X0",
		"tmux (real)":             filepath.Join("/tmp", "tmux-"+uid, "default"),
	}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		real["D-Bus session bus (real)"] = filepath.Join(d, "bus")
	}
	for name, addr := range real {
		if fi, err := os.Stat(addr); addr == "" || err != nil || fi.Mode()&os.ModeSocket == 0 {
			delete(real, name)
		} else {
			standIns[name] = addr
		}
	}
	var names, addrs []string
	for name, addr := range standIns {
		names, addrs = append(names, name), append(addrs, addr)
	}
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			r := attack(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, append([]string{"connect-each"}, addrs...)...)
			mustBlock(t, r, "connecting to the host's services")
			lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
			if len(lines) != len(addrs)+1 {
				t.Fatalf("connect-each did not try every socket:\n%v", r)
			}
			for i, line := range lines[:len(addrs)] {
				if !strings.HasSuffix(line, "(errno "+strconv.Itoa(int(unix.EPERM))+")") {
					t.Errorf("ESCAPE or unexpected answer: %s (%s)", names[i], line)
				}
			}
		})
	}
}

// connectEach connects to each socket in turn (a path or @abstract name)
// and prints one line for each; it fails if any connect worked.
func connectEach(a []string) error {
	var reached error
	for _, addr := range a {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
		if err == nil {
			err = unix.Connect(fd, sockaddr(addr))
			unix.Close(fd)
		}
		if err == nil {
			reached = errors.New("reached " + addr)
			fmt.Printf("%s: connected\n", addr)
			continue
		}
		var errno unix.Errno
		errors.As(err, &errno)
		fmt.Printf("%s: %v (errno %d)\n", addr, err, errno)
	}
	if reached != nil {
		return nil // the forbidden thing worked
	}
	return unix.EPERM
}

func acceptAll(l net.Listener) {
	for {
		c, err := l.Accept()
		if err != nil {
			return
		}
		c.Close()
	}
}

// TestAbstractSocketScoped: an abstract socket of a process outside the
// sandbox is refused by seccomp's connect rule and, on Landlock ABI 6 and
// later, by Landlock's IPC scoping too.
func TestAbstractSocketScoped(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	name := "agent-ls-test-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	l, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go acceptAll(l)
	mustWork(t, unconfined(t, "abstract-connect", name), "abstract connect, unconfined")
	mustBlockByFilter(t, attack(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, "abstract-connect", name), "abstract connect")
	if LandlockABI() < 6 {
		t.Log("Landlock ABI < 6: abstract sockets are refused by the seccomp connect rule alone")
		return
	}
	// Landlock's scope on its own, without the filter.
	r := unconfined(t, "landlock-only-abstract", name)
	mustBlock(t, r, "abstract connect under Landlock's scope alone")
	if !strings.Contains(r.stdout, "errno "+strconv.Itoa(int(unix.EPERM))+")") {
		t.Errorf("want EPERM from Landlock's scope: %v", r)
	}
}

// applyLandlock enforces the Landlock ruleset of a command with no
// writable roots on this test process, without the seccomp filter, as the
// helper does (exec_plan_linux.c).
func applyLandlock(abi int, network bool) error {
	rs, err := landlockPlan(abi, nil, network)
	if err != nil {
		return err
	}
	attr := ll.RulesetAttr{HandledAccessFS: rs.handledFS, HandledAccessNet: rs.handledNet, Scoped: rs.scoped}
	fd, err := ll.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	for _, r := range rs.rules {
		pfd, err := unix.Open(r.path, unix.O_PATH|unix.O_CLOEXEC, 0)
		if err != nil {
			if r.optional && errors.Is(err, unix.ENOENT) {
				continue
			}
			return err
		}
		var st unix.Stat_t
		access := r.access
		if unix.Fstat(pfd, &st) == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
			access &= llFile
		}
		err = ll.LandlockAddPathBeneathRule(fd, &ll.PathBeneathAttr{ParentFd: pfd, AllowedAccess: access}, 0)
		unix.Close(pfd)
		if err != nil {
			return fmt.Errorf("rule for %s: %w", r.path, err)
		}
	}
	if err := ll.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return err
	}
	return ll.AllThreadsLandlockRestrictSelf(fd, 0)
}
