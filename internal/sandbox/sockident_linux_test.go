package sandbox

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"golang.org/x/sys/unix"
)

// A socket reached by a second name: with the network off a command
// connects only to sockets that sandboxed commands bound, whatever name
// it reaches them by (notify_linux.c).
func init() {
	// unix-relink brings the socket a[1] into the workspace as a[2] (a[0]:
	// link, rename or symlink; rename-dir moves a[1]'s directory to a[2]
	// and connects to the socket there), then connects to a[2].
	attacks["unix-relink"] = func(a []string) error {
		var err error
		switch a[0] {
		case "rename-dir":
			err = os.Rename(filepath.Dir(a[1]), a[2])
			a[2] = filepath.Join(a[2], filepath.Base(a[1]))
		case "link":
			err = os.Link(a[1], a[2])
		case "rename":
			err = os.Rename(a[1], a[2])
		case "symlink":
			err = os.Symlink(a[1], a[2])
		default:
			return errors.New("unknown way " + a[0])
		}
		if err != nil {
			return err
		}
		c, err := net.Dial("unix", a[2])
		if err != nil {
			return err
		}
		return c.Close()
	}
	// unix-accept listens at a[0] and says so, then says when it accepted
	// a client.
	attacks["unix-accept"] = func(a []string) error {
		l, err := net.Listen("unix", a[0])
		if err != nil {
			return err
		}
		defer l.Close()
		fmt.Println("listening")
		c, err := l.Accept()
		if err != nil {
			return err
		}
		fmt.Println("accepted")
		return c.Close()
	}
}

// hostSocketTree makes, below /tmp (a writable root, like the directories
// of tmux, an SSH agent or an Emacs server, and so on the filesystem a
// link or a rename needs), a project root ws and a host service's socket
// outside it, tmux-like, that counts its connections.
func hostSocketTree(t *testing.T) (ws, host string, hits func() int64) {
	t.Helper()
	base, err := os.MkdirTemp("/tmp", "agent-ls-ident-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	ws, dir := filepath.Join(base, "ws"), filepath.Join(base, "tmux-42")
	for _, d := range []string{ws, dir} {
		if err := os.Mkdir(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	host = filepath.Join(dir, "default")
	n := countingListener(t, host)
	return ws, host, func() int64 { return n.Load() }
}

// TestUnixSocketSecondName: a host socket (a listener made outside the
// sandbox, in /tmp, as tmux's is) hard-linked, renamed, symlinked or
// bind-mounted into the workspace is not reached, and stays where it was.
func TestUnixSocketSecondName(t *testing.T) {
	requireLandlock(t)
	requireUnixSockets(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			for _, how := range []string{"link", "rename", "symlink"} {
				ws, host, hits := hostSocketTree(t)
				p := Policy{Mode: WorkspaceWrite, Cwd: ws}
				r := attack(t, p, "unix-relink", how, host, filepath.Join(ws, "x.sock"))
				mustBlock(t, r, "a host socket brought into the workspace by "+how)
				if n := hits(); n != 0 {
					t.Errorf("ESCAPE: the host socket got %d connections through a %s in the workspace", n, how)
				}
				if fi, err := os.Lstat(host); err != nil || fi.Mode()&os.ModeSocket == 0 {
					t.Errorf("the host socket was moved away by a %s: %v", how, err)
				}
			}
			// A directory holding a host socket moved into the workspace,
			// socket and all. Where the move itself goes through, the
			// socket's identity alone keeps it out of reach (EPERM);
			// without a mount namespace /tmp is read-only while it holds
			// the test binary (EACCES), and on a kernel that binds each
			// writable root onto itself nosuid the move is EXDEV.
			ws, host, hits := hostSocketTree(t)
			mustBlock(t, attack(t, Policy{Mode: WorkspaceWrite, Cwd: ws}, "unix-relink", "rename-dir", host, filepath.Join(ws, "moved")),
				"a host socket's directory moved into the workspace")
			if n := hits(); n != 0 {
				t.Errorf("ESCAPE: the host socket got %d connections in a directory moved into the workspace", n)
			}
			t.Run("linked-from-outside", func(t *testing.T) {
				// A second name made outside the sandbox: only the
				// socket's identity tells it from the command's own.
				ws, host, hits := hostSocketTree(t)
				if err := os.Link(host, filepath.Join(ws, "x.sock")); err != nil {
					t.Fatal(err)
				}
				p := Policy{Mode: WorkspaceWrite, Cwd: ws}
				wantErrno(t, attack(t, p, "unix-connect", filepath.Join(ws, "x.sock")), unix.EPERM, "a host socket hard-linked into the workspace from outside")
				if n := hits(); n != 0 {
					t.Errorf("ESCAPE: the host socket got %d connections through a hard link", n)
				}
			})
			t.Run("bind-mount", func(t *testing.T) {
				ws, host, hits := hostSocketTree(t)
				mnt := filepath.Join(ws, "mnt")
				if err := os.Mkdir(mnt, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := unix.Mount(filepath.Dir(host), mnt, "", unix.MS_BIND, ""); err != nil {
					t.Skipf("no bind mount here (%v): needs root", err)
				}
				t.Cleanup(func() { unix.Unmount(mnt, unix.MNT_DETACH) })
				p := Policy{Mode: WorkspaceWrite, Cwd: ws}
				wantErrno(t, attack(t, p, "unix-connect", filepath.Join(mnt, filepath.Base(host))), unix.EPERM, "a host socket through a bind mount in the workspace")
				if n := hits(); n != 0 {
					t.Errorf("ESCAPE: the host socket got %d connections through a bind mount", n)
				}
			})
		})
	}
}

// TestUnixSocketAcrossCommands: a server one sandboxed command starts in
// the workspace is reached by a second command that shares its socket
// registry (as the commands of one agent session do), and not by one
// with a registry of its own.
func TestUnixSocketAcrossCommands(t *testing.T) {
	requireLandlock(t)
	requireUnixSockets(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			reg := &SocketRegistry{}
			t.Cleanup(func() { reg.Close() })
			p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg}
			sock := filepath.Join(cwd, "srv.sock")
			ctx, cancel := context.WithCancel(context.Background())
			server, err := Command(ctx, p, []string{selfPath(t), "attack", "unix-accept", sock}, testEnv(), selfPath(t))
			if err != nil {
				t.Fatal(err)
			}
			out, err := server.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := server.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cancel(); server.Wait() })
			lines := bufio.NewReader(out)
			if line, _ := lines.ReadString('\n'); line != "listening\n" {
				t.Fatalf("the server did not start: %q", line)
			}
			other := p
			other.Sockets = nil
			wantErrno(t, attack(t, other, "unix-connect", sock), unix.EPERM, "a command of another session connects to the server")
			mustWork(t, attack(t, p, "unix-connect", sock), "a second command of the session connects to the server")
			if rest, _ := lines.ReadString('\n'); rest != "accepted\n" {
				t.Errorf("the server served no client: %q", rest)
			}
		})
	}
}

// TestUnixProjectSockets: a socket made outside the sandbox in the project
// root (a database the user runs there) is refused by default and reached
// with AllowProjectSockets; the setting reaches no further than the
// project root.
func TestUnixProjectSockets(t *testing.T) {
	requireLandlock(t)
	requireUnixSockets(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, outside := workspace(t)
			db := filepath.Join(cwd, "db.sock")
			hits := countingListener(t, db)
			extra := filepath.Join(outside, "extra")
			if err := os.Mkdir(extra, 0o755); err != nil {
				t.Fatal(err)
			}
			extraHits := countingListener(t, filepath.Join(extra, "x.sock"))
			p := Policy{Mode: WorkspaceWrite, Cwd: cwd, WritableRoots: []string{extra}}
			wantErrno(t, attack(t, p, "unix-connect", db), unix.EPERM, "connect to a socket made outside the sandbox in the project root")
			if n := hits.Load(); n != 0 {
				t.Errorf("ESCAPE: the project socket got %d connections by default", n)
			}
			p.AllowProjectSockets = true
			mustWork(t, attack(t, p, "unix-connect", db), "connect to a project socket with AllowProjectSockets")
			if n := hits.Load(); n != 1 {
				t.Errorf("the project socket got %d connections with AllowProjectSockets, want 1", n)
			}
			wantErrno(t, attack(t, p, "unix-connect", filepath.Join(extra, "x.sock")), unix.EPERM, "connect to a socket made outside the sandbox in an extra writable root")
			if n := extraHits.Load(); n != 0 {
				t.Errorf("ESCAPE: the socket in the extra root got %d connections", n)
			}
		})
	}
}

// TestUnixSocketFileRights: a command with the network off cannot make a
// socket file itself (mknod), so every socket file in the workspace is
// one the supervisor bound or one made outside.
func TestUnixSocketFileRights(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, nil, debianPython, "-c",
		`import os, stat, sys
try:
    os.mknod(sys.argv[1], stat.S_IFSOCK | 0o600)
except OSError as e:
    print("refused", e.errno)
    sys.exit(0)
print("made")`, filepath.Join(cwd, "made.sock"))
	if !strings.Contains(r.stdout, "refused "+strconv.Itoa(int(syscall.EACCES))) || exists(filepath.Join(cwd, "made.sock")) {
		t.Errorf("mknod of a socket file in the workspace was not refused with EACCES\n%v", r)
	}
}

// TestUnixSocketRegistryBound: a full socket registry refuses further binds
// (ENOSPC) rather than grow without bound.
func TestUnixSocketRegistryBound(t *testing.T) {
	requireLandlock(t)
	requireUnixSockets(t)
	cwd, _ := workspace(t)
	reg := &SocketRegistry{}
	t.Cleanup(func() { reg.Close() })
	f, err := reg.handle()
	if err != nil {
		t.Fatal(err)
	}
	const records, size = 65536, 32 // NOTIFY_MAX_SOCKETS, sizeof(struct agentls_sock_id)
	if _, err := f.Write(make([]byte, records*size)); err != nil {
		t.Fatal(err)
	}
	f.Close()
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg}
	wantErrno(t, attack(t, p, "unix-bind", filepath.Join(cwd, "one-too-many.sock")), unix.ENOSPC, "a bind with the registry full")
	mustWork(t, attack(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, "unix-bind", filepath.Join(cwd, "own.sock")), "a bind with a registry of its own")
}

// TestUnixProjectSocketsCLI: agent-ls sandbox --allow-project-sockets lets
// the command reach a socket made outside the sandbox in the project
// root, and --explain says what it does.
func TestUnixProjectSocketsCLI(t *testing.T) {
	requireLandlock(t)
	requireUnixSockets(t)
	cwd, _ := workspace(t)
	db := filepath.Join(cwd, "db.sock")
	countingListener(t, db)
	wantErrno(t, helperCLI(t, cwd, testEnv(), "--", selfPath(t), "attack", "unix-connect", db), unix.EPERM, "agent-ls sandbox connecting to a project socket")
	mustWork(t, helperCLI(t, cwd, testEnv(), "--allow-project-sockets", "--", selfPath(t), "attack", "unix-connect", db), "agent-ls sandbox --allow-project-sockets connecting to a project socket")
	r := helperCLI(t, cwd, testEnv(), "--explain")
	if r.code != 0 || !strings.Contains(r.stdout, "connect only to a socket a sandboxed command of the same session bound") || strings.Contains(r.stdout, "allow_project_sockets") {
		t.Errorf("--explain: %v", r)
	}
	r = helperCLI(t, cwd, testEnv(), "--explain", "--allow-project-sockets")
	if r.code != 0 || !strings.Contains(r.stdout, "allow_project_sockets: also any socket below") {
		t.Errorf("--explain --allow-project-sockets: %v", r)
	}
}
