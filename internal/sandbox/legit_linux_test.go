package sandbox

import (
	"bufio"
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestLegitimateWork: what an agent does all day still works inside.
func TestLegitimateWork(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			p := Policy{Mode: WorkspaceWrite, Cwd: cwd}
			tmp := t.TempDir()
			script := `set -e
echo hello > f.txt && cat f.txt
mkdir -p sub/dir && mv f.txt sub/dir/g.txt && ln sub/dir/g.txt h.txt && rm h.txt
echo t > ` + tmp + `/t && cat ` + tmp + `/t
head -c 16 /dev/urandom > /dev/null && echo x > /dev/null
grep -q '^root:' /etc/passwd && echo passwd-ok
pwd`
			r := runIn(t, p, nil, "sh", "-c", script)
			mustWork(t, r, "shell work in the cwd and /tmp")
			if !strings.Contains(r.stdout, "passwd-ok") || !strings.Contains(r.stdout, cwd) {
				t.Errorf("unexpected output:\n%v", r)
			}
			mustWork(t, attack(t, p, "socketpair"), "AF_UNIX socketpair with write/recv")
			shm := "/dev/shm/agent-ls-sandbox-test"
			if m.noNS {
				mustBlock(t, attack(t, p, "write", shm), "writing the host's /dev/shm")
			} else {
				mustWork(t, attack(t, p, "write", shm), "writing the private /dev/shm")
				if exists(shm) {
					t.Errorf("the private /dev/shm leaked to the host")
				}
			}
			// A Unix server in the workspace works with the network off
			// (the supervisor decides its bind) and on.
			if ok, note := unixSocketSupport(); ok {
				unixServer(t, p, cwd, "off.sock")
			} else {
				t.Logf("Unix sockets stay denied with the network off here (%s)", note)
				wantErrno(t, attack(t, p, "unix-serve", filepath.Join(cwd, "off.sock")), unix.EPERM, "a Unix server with the network off")
			}
			on := p
			on.Network = true
			unixServer(t, on, cwd, "on.sock")

			git(t, cwd, "init", "-q")
			r = runIn(t, p, nil, "git", "status", "--short")
			mustWork(t, r, "git status")
			if !strings.Contains(r.stdout, "?? sub/") {
				t.Errorf("git status did not see the work tree:\n%v", r)
			}
		})
	}
}

// unixServer starts a Unix socket server in the cwd inside the sandbox and
// talks to it from outside.
func unixServer(t *testing.T, p Policy, cwd, name string) {
	t.Helper()
	sock := filepath.Join(cwd, name)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd, err := Command(ctx, p, []string{selfPath(t), "attack", "unix-serve", sock}, testEnv(), selfPath(t))
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	line, _ := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "listening" {
		KillGroup(cmd)
		t.Errorf("Unix server in the sandbox did not start: %q %s", line, stderr.String())
		return
	}
	c, err := net.Dial("unix", sock)
	if err != nil {
		KillGroup(cmd)
		t.Fatalf("dialing the sandboxed server: %v", err)
	}
	defer c.Close()
	got, _ := bufio.NewReader(c).ReadString('\n')
	if got != "served from the sandbox\n" {
		t.Errorf("sandboxed Unix server answered %q", got)
	}
}
