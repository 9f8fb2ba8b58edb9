package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The loopback network a session's commands share (netns_linux.go).
func init() {
	for name, fn := range map[string]func([]string) error{
		"tcp-serve":      tcpServe,
		"tcp-connect":    tcpConnect,
		"tcp-self":       tcpSelf,
		"netns":          printNetns,
		"lo-down":        loDown,
		"add-address":    addAddress,
		"add-route":      addRoute,
		"session-holder": sessionHolder,
		"socket-of":      socketOf,
		"passed-connect": passedConnect,
	} {
		attacks[name] = fn
	}
}

// tcpServe listens on a[0] (host:port), prints "port N", and answers each
// connection with "hello from N" until its stdin ends.
func tcpServe(a []string) error {
	l, err := net.Listen("tcp", a[0])
	if err != nil {
		return err
	}
	port := l.Addr().(*net.TCPAddr).Port
	fmt.Printf("port %d\n", port)
	go func() {
		io.Copy(io.Discard, os.Stdin)
		l.Close()
	}()
	for {
		c, err := l.Accept()
		if err != nil {
			return nil
		}
		fmt.Fprintf(c, "hello from %d\n", port)
		c.Close()
	}
}

// tcpConnect dials a[0] (host:port) and prints the line it gets.
func tcpConnect(a []string) error {
	c, err := net.DialTimeout("tcp", a[0], 10*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		return err
	}
	fmt.Print(line)
	return nil
}

// tcpSelf: a server and its client in one command, over IPv4 and IPv6
// loopback, with a blocking connect made by the supervisor (a raw
// socket: Go's own connects are non-blocking).
func tcpSelf([]string) error {
	for _, addr := range []string{"127.0.0.1:0", "[::1]:0"} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			return err
		}
		go func() {
			if c, err := l.Accept(); err == nil {
				c.Write([]byte("x"))
				c.Close()
			}
		}()
		ta := l.Addr().(*net.TCPAddr)
		fam, sa := unix.AF_INET6, unix.Sockaddr(&unix.SockaddrInet6{Port: ta.Port, Addr: [16]byte(ta.IP.To16())})
		if ip4 := ta.IP.To4(); ip4 != nil {
			fam, sa = unix.AF_INET, &unix.SockaddrInet4{Port: ta.Port, Addr: [4]byte(ip4)}
		}
		fd, err := unix.Socket(fam, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("socket: %w", err)
		}
		if err := unix.Connect(fd, sa); err != nil {
			return fmt.Errorf("blocking connect to %s: %w", ta, err)
		}
		buf := make([]byte, 1)
		if n, err := unix.Read(fd, buf); n != 1 || err != nil {
			return fmt.Errorf("read from %s: %d %w", ta, n, err)
		}
		unix.Close(fd)
		l.Close()
	}
	return nil
}

// firstLine is the first line of out, trimmed.
func firstLine(out string) string {
	line, _, _ := strings.Cut(out, "\n")
	return strings.TrimSpace(line)
}

// socketOf makes a socket of family a[0] and type a[1] (numbers).
func socketOf(a []string) error {
	fam, _ := strconv.Atoi(a[0])
	typ, _ := strconv.Atoi(a[1])
	fd, err := unix.Socket(fam, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	return unix.Close(fd)
}

// passedConnect connects to the Unix socket a[0], takes the TCP socket
// passed over it, and connects that to a[1] (host:port).
func passedConnect(a []string) error {
	fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		return err
	}
	if err := unix.Connect(fd, &unix.SockaddrUnix{Name: a[0]}); err != nil {
		return fmt.Errorf("connect to %s: %w", a[0], err)
	}
	buf, oob := make([]byte, 1), make([]byte, unix.CmsgSpace(4))
	_, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, 0)
	if err != nil {
		return fmt.Errorf("recvmsg: %w", err)
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return fmt.Errorf("no descriptor passed: %v", err)
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 1 {
		return fmt.Errorf("no descriptor passed: %v", err)
	}
	host, port, _ := net.SplitHostPort(a[1])
	pn, _ := strconv.Atoi(port)
	return unix.Connect(fds[0], &unix.SockaddrInet4{Port: pn, Addr: [4]byte(net.ParseIP(host).To4())})
}

// printNetns prints the command's network namespace ("net:[N]").
func printNetns([]string) error {
	s, err := os.Readlink("/proc/self/ns/net")
	if err != nil {
		return err
	}
	fmt.Println(s)
	return nil
}

// loDown takes lo down, which would cut every command of the session off.
func loDown([]string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() &^ unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// addAddress gives lo a second address (an interface change through
// ioctl: netlink sockets are refused outright).
func addAddress([]string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo:1")
	if err != nil {
		return err
	}
	if err := ifr.SetInet4Addr([]byte{10, 9, 8, 7}); err != nil {
		return err
	}
	return unix.IoctlIfreq(fd, unix.SIOCSIFADDR, ifr)
}

// addRoute adds a default route through lo (SIOCADDRT).
func addRoute([]string) error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	// struct rtentry: pad, dst, gateway, genmask (sockaddr_in each), flags...
	var rt [120]byte
	for _, off := range []int{8, 24, 40} {
		rt[off] = unix.AF_INET
	}
	rt[56] = unix.RTF_UP
	// rt_dev, a char * at 88 (x86-64 and arm64 alike).
	dev := append([]byte("lo"), 0)
	devPtr := uintptr(unsafe.Pointer(&dev[0]))
	for i := range 8 {
		rt[88+i] = byte(devPtr >> (8 * i))
	}
	_, _, e := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.SIOCADDRT, uintptr(unsafe.Pointer(&rt[0])))
	runtime.KeepAlive(dev)
	if e != 0 {
		return e
	}
	return nil
}

// sessionHolder plays an agent-ls process with one session: it runs
// `sleep` in the session's loopback network through the real runner in
// a[0], prints "netns net:[N]" of that namespace and waits to be killed.
func sessionHolder(a []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	reg := new(SocketRegistry)
	cmd, err := Command(context.Background(), Policy{Mode: WorkspaceWrite, Cwd: a[0], Sockets: reg}, []string{"bash", "-c", "readlink /proc/self/ns/net; exec sleep 1000"}, os.Environ(), self)
	if err != nil {
		return err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return err
	}
	fmt.Printf("netns %s", line)
	return cmd.Wait()
}

func requireSessionNet(t *testing.T) {
	t.Helper()
	requireLandlock(t)
	if c := Probe(); !c.SessionNetwork {
		t.Skip("!!!!!! SKIPPED: no loopback network for a session here (" + c.SessionNetworkNote + ") !!!!!!")
	}
}

// server is a tcp-serve command running under p.
type server struct {
	cmd   *Cmd
	stdin io.WriteCloser
	port  int
}

func startServer(t *testing.T, p Policy, addr string) *server {
	t.Helper()
	cmd, err := Command(context.Background(), p, []string{selfPath(t), "attack", "tcp-serve", addr}, testEnv(), selfPath(t))
	if err != nil {
		t.Fatal(err)
	}
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &server{cmd: cmd, stdin: stdin}
	t.Cleanup(func() { stdin.Close(); KillGroup(cmd); cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if _, perr := fmt.Sscanf(line, "port %d", &s.port); err != nil || perr != nil {
		t.Fatalf("the server did not start: %q %v", line, err)
	}
	return s
}

// TestSessionLoopback: a server one command of a session starts on
// 127.0.0.1 or ::1 is reached by the next command of the session, never by
// a command of another session; connects within one command work,
// blocking ones included.
func TestSessionLoopback(t *testing.T) {
	requireSessionNet(t)
	cwd, _ := workspace(t)
	a, b := new(SocketRegistry), new(SocketRegistry)
	t.Cleanup(func() { a.Close(); b.Close() })
	pa := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: a}
	pb := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: b}
	if r := attack(t, pa, "tcp-self"); r.code != 0 {
		t.Fatalf("a server and its client in one command:\n%v", r)
	}
	for _, host := range []string{"127.0.0.1", "::1"} {
		s := startServer(t, pa, net.JoinHostPort(host, "0"))
		addr := net.JoinHostPort(host, strconv.Itoa(s.port))
		want := fmt.Sprintf("hello from %d", s.port)
		if r := attack(t, pa, "tcp-connect", addr); r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("the next command of the session does not reach %s:\n%v", addr, r)
		}
		ro := pa
		ro.Mode = ReadOnly
		if r := attack(t, ro, "tcp-connect", addr); r.code != 0 || !strings.Contains(r.stdout, want) {
			t.Errorf("a read-only command of the session does not reach %s:\n%v", addr, r)
		}
		wantErrno(t, attack(t, pb, "tcp-connect", addr), unix.ECONNREFUSED, "another session reaches "+addr)
		if _, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			// The host's own loopback may have something on the port by
			// chance; then it must not be our server.
			c, _ := net.Dial("tcp", addr)
			if c != nil {
				line, _ := bufio.NewReader(c).ReadString('\n')
				c.Close()
				if strings.Contains(line, want) {
					t.Errorf("the host reaches the session's server at %s", addr)
				}
			}
		}
	}
}

// TestSessionLoopbackHostUnreachable: a command of a session reaches
// neither a listener on the host's loopback nor a host abstract Unix
// socket, and its namespace alone already keeps the abstract one out.
func TestSessionLoopbackHostUnreachable(t *testing.T) {
	requireSessionNet(t)
	cwd, _ := workspace(t)
	reg := new(SocketRegistry)
	t.Cleanup(func() { reg.Close() })
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello from the host\n"))
			c.Close()
		}
	}()
	name := fmt.Sprintf("agent-ls-test-%d-%d", os.Getpid(), time.Now().UnixNano())
	al, err := net.Listen("unix", "@"+name)
	if err != nil {
		t.Fatal(err)
	}
	defer al.Close()
	addr := l.Addr().String()
	if r := unconfined(t, "tcp-connect", addr); r.code != 0 {
		t.Fatalf("the host listener is not reachable unconfined:\n%v", r)
	}
	if r := unconfined(t, "abstract-connect", name); r.code != 0 {
		t.Fatalf("the host abstract socket is not reachable unconfined:\n%v", r)
	}
	wantErrno(t, attack(t, p, "tcp-connect", addr), unix.ECONNREFUSED, "a session command reaches the host's 127.0.0.1")
	mustBlock(t, attack(t, p, "abstract-connect", name), "a session command reaches a host abstract socket")
	mustBlock(t, attack(t, p, "tcp-connect", "192.0.2.1:80"), "a session command reaches another network")
	// Without the filter and the supervisor: the namespace alone.
	nsenter, err := exec.LookPath("nsenter")
	if err != nil {
		t.Skip("no nsenter to check the namespace alone")
	}
	user, netns, err := reg.netNamespaces()
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	defer netns.Close()
	for _, args := range [][]string{{"abstract-connect", name}, {"tcp-connect", addr}} {
		cmd := exec.Command(nsenter, append([]string{"--user=/proc/self/fd/3", "--net=/proc/self/fd/4", "--preserve-credentials", "--", selfPath(t), "attack"}, args...)...)
		cmd.ExtraFiles = []*os.File{user, netns}
		cmd.Env = testEnv()
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitBlocked {
			t.Errorf("in the session's namespace, unconfined, %v was not refused: %v\n%s", args, err, out)
		}
	}
}

// TestSessionNetNoAdmin: a command cannot take lo down, add an address
// or a route in its session's namespace, and loopback still works after
// it tried.
func TestSessionNetNoAdmin(t *testing.T) {
	requireSessionNet(t)
	cwd, _ := workspace(t)
	reg := new(SocketRegistry)
	t.Cleanup(func() { reg.Close() })
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg}
	for _, a := range []string{"lo-down", "add-address", "add-route"} {
		if os.Geteuid() == 0 {
			// Root's attempt works outside any sandbox: the attack is real.
			if r := unconfinedIn(t, reg, a); r.code != 0 {
				t.Fatalf("%s does not work even with the namespace's capabilities:\n%v", a, r)
			}
			reg.Close()
			reg = new(SocketRegistry)
			p.Sockets = reg
		}
		mustBlock(t, attack(t, p, a), a+" in the session's namespace")
	}
	if r := attack(t, p, "tcp-self"); r.code != 0 {
		t.Errorf("loopback no longer works:\n%v", r)
	}
}

// unconfinedIn runs an attack in the session's namespaces with their
// capabilities, without the rest of the sandbox.
func unconfinedIn(t *testing.T, reg *SocketRegistry, args ...string) result {
	t.Helper()
	nsenter, err := exec.LookPath("nsenter")
	if err != nil {
		t.Skip("no nsenter")
	}
	user, netns, err := reg.netNamespaces()
	if err != nil {
		t.Fatal(err)
	}
	defer user.Close()
	defer netns.Close()
	cmd := exec.Command(nsenter, append([]string{"--user=/proc/self/fd/3", "--net=/proc/self/fd/4", "--", selfPath(t), "attack"}, args...)...)
	cmd.ExtraFiles = []*os.File{user, netns}
	cmd.Env = testEnv()
	return collect(t, cmd)
}

// netnsOf is the "net:[N]" of the namespace f holds.
func netnsOf(t *testing.T, f *os.File) string {
	t.Helper()
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("net:[%d]", st.Ino)
}

// netnsHolders lists the processes that are in the namespace ns
// ("net:[N]") or hold a descriptor of it.
func netnsHolders(ns string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	for _, p := range procs {
		if l, _ := os.Readlink(p + "/ns/net"); l == ns {
			out = append(out, p+" is in it")
		}
		fds, _ := filepath.Glob(p + "/fd/*")
		for _, fd := range fds {
			if l, _ := os.Readlink(fd); l == ns {
				out = append(out, fd+" holds it")
			}
		}
	}
	return out
}

func waitNetnsGone(t *testing.T, ns string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		h := netnsHolders(ns)
		if len(h) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the session's namespace %s is still there: %v", ns, h)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSessionNetLifetime: each command of a session runs in the session's
// namespace (not the host's), no process but agent-ls holds it between
// commands, and once the session is closed nothing does.
func TestSessionNetLifetime(t *testing.T) {
	requireSessionNet(t)
	cwd, _ := workspace(t)
	reg := new(SocketRegistry)
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg}
	host, _ := os.Readlink("/proc/self/ns/net")
	r1, r2 := attack(t, p, "netns"), attack(t, p, "netns")
	ns := firstLine(r1.stdout)
	if r1.code != 0 || ns != firstLine(r2.stdout) || ns == host || !strings.HasPrefix(ns, "net:[") {
		t.Fatalf("two commands of a session are not in one namespace of their own (host %s):\n%v\n%v", host, r1, r2)
	}
	user, netns, err := reg.netNamespaces()
	if err != nil {
		t.Fatal(err)
	}
	if got := netnsOf(t, netns); got != ns {
		t.Fatalf("the session holds %s, its commands ran in %s", got, ns)
	}
	user.Close()
	netns.Close()
	self := fmt.Sprintf("/proc/%d/", os.Getpid())
	for _, h := range netnsHolders(ns) {
		if !strings.HasPrefix(h, self) {
			t.Errorf("besides agent-ls, %s", h)
		}
	}
	reg.Close()
	waitNetnsGone(t, ns)
	if _, _, err := reg.netNamespaces(); err == nil {
		t.Error("a closed session still gives out its namespace")
	}
}

// TestSessionNetGoneAfterKill: when agent-ls is killed with SIGKILL while
// a command runs in a session's namespace, the command ends and nothing
// is left in or holding the namespace.
func TestSessionNetGoneAfterKill(t *testing.T) {
	requireSessionNet(t)
	cwd, _ := workspace(t)
	cmd := exec.Command(selfPath(t), "attack", "session-holder", cwd)
	cmd.Env = testEnv()
	cmd.Stderr = os.Stderr
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer cmd.Process.Kill()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	ns, ok := strings.CutPrefix(strings.TrimSpace(line), "netns ")
	if err != nil || !ok || !strings.HasPrefix(ns, "net:[") {
		t.Fatalf("the agent's command did not report its namespace: %q %v", line, err)
	}
	if len(netnsHolders(ns)) == 0 {
		t.Fatalf("nothing holds %s while the command runs", ns)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	waitNetnsGone(t, ns)
}

// TestSessionNetOnlyWithNetworkOffInNamespaces: with the network on a
// command stays in the host's namespace; without the helper's namespaces
// it has no TCP at all, as before.
func TestSessionNetOnlyWithNetworkOffInNamespaces(t *testing.T) {
	requireSessionNet(t)
	cwd, _ := workspace(t)
	reg := new(SocketRegistry)
	t.Cleanup(func() { reg.Close() })
	host, _ := os.Readlink("/proc/self/ns/net")
	on := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg, Network: true}
	if r := attack(t, on, "netns"); r.code != 0 || firstLine(r.stdout) != host {
		t.Errorf("with the network on, the command is not in the host's namespace %s:\n%v", host, r)
	}
	noNS := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg, NoNamespace: true}
	wantErrno(t, attack(t, noNS, "tcp-self"), unix.EPERM, "TCP without the helper's namespaces")
	if r := attack(t, noNS, "netns"); r.code != 0 || firstLine(r.stdout) != host {
		t.Errorf("without namespaces, the command left the host's namespace %s:\n%v", host, r)
	}
	alone := Policy{Mode: WorkspaceWrite, Cwd: cwd}
	wantErrno(t, attack(t, alone, "tcp-self"), unix.EPERM, "TCP outside a session")
}

// TestSessionNetExplained: --explain and the summary say whether a
// session's commands share a loopback network, and where they do not,
// that TCP is refused and Unix sockets in the workspace are the way.
func TestSessionNetExplained(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd}
	c := Probe()
	explain, summary := Explain(p, c), c.Summary()
	if c.SessionNetwork {
		if !strings.Contains(explain, "share a network namespace of their") || !strings.Contains(summary, "share a loopback network of their own") {
			t.Errorf("the loopback network is not explained:\n%s\n%s", explain, summary)
		}
	}
	t.Setenv(NoNamespaceEnv, "1")
	c = Probe()
	if c.SessionNetwork {
		t.Fatal("a session network without the helper's namespaces")
	}
	explain, summary = Explain(p, c), c.Summary()
	if !strings.Contains(explain, "share no loopback network here") || !strings.Contains(explain, "use Unix sockets in the workspace") {
		t.Errorf("--explain does not say there is no loopback network:\n%s", explain)
	}
	if !strings.Contains(summary, "share no loopback network here") {
		t.Errorf("the summary does not say there is no loopback network:\n%s", summary)
	}
	r := helperCLI(t, cwd, testEnv(NoNamespaceEnv+"=1"), "--explain", "--cwd", cwd)
	if !strings.Contains(r.stdout, "share no loopback network here") {
		t.Errorf("agent-ls sandbox --explain without namespaces:\n%v", r)
	}
}

// TestSessionDevServer: Python's http.server, started on a fixed port by
// one command of a session (nothing else can hold a port there), serves
// the next command, over IPv4 and IPv6.
func TestSessionDevServer(t *testing.T) {
	requireSessionNet(t)
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("no python3")
	}
	cwd, _ := workspace(t)
	if err := os.WriteFile(filepath.Join(cwd, "index.html"), []byte("served in the session\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	reg := new(SocketRegistry)
	t.Cleanup(func() { reg.Close() })
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg}
	for _, host := range []string{"127.0.0.1", "::1"} {
		srv, err := Command(context.Background(), p, []string{"python3", "-m", "http.server", "8765", "--bind", host}, testEnv(), selfPath(t))
		if err != nil {
			t.Fatal(err)
		}
		if err := srv.Start(); err != nil {
			t.Fatal(err)
		}
		url := "http://" + net.JoinHostPort(host, "8765") + "/"
		client := `import time, urllib.request
for i in range(200):
    try:
        print(urllib.request.urlopen("` + url + `").read().decode(), end="")
        break
    except OSError as e:
        err = e
        time.sleep(0.05)
else:
    raise SystemExit(str(err))`
		r := runIn(t, p, nil, "python3", "-c", client)
		KillGroup(srv)
		srv.Wait()
		if r.code != 0 || r.stdout != "served in the session\n" {
			t.Errorf("the next command does not reach the dev server at %s:\n%v", url, r)
		}
	}
}

// TestSessionSocketRules: in a session's namespace the filter lets TCP
// and UDP sockets be made, and nothing more than before: no raw, packet
// or netlink socket, no Unix datagram socket, no sendto with an address.
func TestSessionSocketRules(t *testing.T) {
	requireSessionNet(t)
	cwd, _ := workspace(t)
	reg := new(SocketRegistry)
	t.Cleanup(func() { reg.Close() })
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg}
	n := func(v int) string { return strconv.Itoa(v) }
	for _, s := range [][2]int{{unix.AF_INET, unix.SOCK_STREAM}, {unix.AF_INET, unix.SOCK_DGRAM}, {unix.AF_INET6, unix.SOCK_STREAM}, {unix.AF_INET6, unix.SOCK_DGRAM}, {unix.AF_UNIX, unix.SOCK_STREAM}} {
		if r := attack(t, p, "socket-of", n(s[0]), n(s[1])); r.code != 0 {
			t.Errorf("socket(%d, %d) in the session:\n%v", s[0], s[1], r)
		}
	}
	for _, s := range [][2]int{{unix.AF_INET, unix.SOCK_RAW}, {unix.AF_INET6, unix.SOCK_RAW}, {unix.AF_INET, unix.SOCK_SEQPACKET}, {unix.AF_PACKET, unix.SOCK_RAW},
		{unix.AF_NETLINK, unix.SOCK_RAW}, {unix.AF_UNIX, unix.SOCK_DGRAM}, {unix.AF_UNIX, unix.SOCK_RAW}, {unix.AF_VSOCK, unix.SOCK_STREAM}, {unix.AF_INET + 1<<32, unix.SOCK_STREAM}} {
		mustBlockByFilter(t, attack(t, p, "socket-of", n(s[0]), n(s[1])), fmt.Sprintf("socket(%#x, %d) in the session", s[0], s[1]))
	}
	mustBlockByFilter(t, attack(t, p, "sendto-address", "stream", "@agent-ls-nowhere"), "sendto with an address in the session")
}

// TestSessionPassedSocket: a TCP socket made in the host's network and
// passed to a command of a session (over a Unix socket the user allows
// below the project root) is not connected by the supervisor.
func TestSessionPassedSocket(t *testing.T) {
	requireSessionNet(t)
	cwd, _ := workspace(t)
	reg := new(SocketRegistry)
	t.Cleanup(func() { reg.Close() })
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg, AllowProjectSockets: true}
	host, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	go func() {
		for {
			c, err := host.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	path := filepath.Join(cwd, "passer.sock")
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()
	go func() {
		for {
			c, err := ul.AcceptUnix()
			if err != nil {
				return
			}
			fd, err := unix.Socket(unix.AF_INET, unix.SOCK_STREAM, 0)
			if err == nil {
				c.WriteMsgUnix([]byte("x"), unix.UnixRights(fd), nil)
				unix.Close(fd)
			}
			c.Close()
		}
	}()
	if r := unconfined(t, "passed-connect", path, host.Addr().String()); r.code != 0 {
		t.Fatalf("the passed socket does not connect unconfined:\n%v", r)
	}
	wantErrno(t, attack(t, p, "passed-connect", path, host.Addr().String()), unix.EPERM, "a host TCP socket passed into the session connects")
}
