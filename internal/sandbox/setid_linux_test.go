package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// setIDCases make a set-user-ID or set-group-ID file in the cwd, in every
// way a command can: each must fail with EPERM and leave no such file.
// file is what each leaves behind, checked from outside; "" when it
// leaves nothing.
var setIDCases = []struct {
	name, script, file string
	python             bool
}{
	{"chmod 4755 on a copy of sh", "cp /bin/sh sh && chmod 4755 sh", "sh", false},
	{"chmod u+s", "cp /bin/sh sh && chmod u+s sh", "sh", false},
	{"chmod g+s on a file", "cp /bin/sh sh && chmod g+s sh", "sh", false},
	{"chmod 6755", "cp /bin/sh sh && chmod 6755 sh", "sh", false},
	{"install -m 4755", "install -m 4755 /bin/sh sh", "sh", false},
	{"install -m 2755", "install -m 2755 /bin/sh sh", "sh", false},
	{"open O_CREAT 04755", "import os; os.open('f', os.O_CREAT | os.O_WRONLY, 0o4755)", "f", true},
	{"open O_CREAT 02755", "import os; os.open('f', os.O_CREAT | os.O_WRONLY, 0o2755)", "f", true},
	{"O_TMPFILE 04755 then linked", "import os\nfd = os.open('.', os.O_TMPFILE | os.O_WRONLY, 0o4755)\nos.link('/proc/self/fd/%d' % fd, 'f', dst_dir_fd=os.open('.', os.O_RDONLY), follow_symlinks=True)", "f", true},
	{"mknod a regular file 04755", "import os, stat; os.mknod('f', stat.S_IFREG | 0o4755)", "f", true},
	{"mknod a fifo 02755", "import os, stat; os.mknod('f', stat.S_IFIFO | 0o2755)", "f", true},
	{"os.chmod", "import os, shutil; shutil.copy('/bin/sh', 'sh'); os.chmod('sh', 0o4755)", "sh", true},
	{"os.fchmod", "import os, shutil; shutil.copy('/bin/sh', 'sh'); fd = os.open('sh', os.O_RDONLY); os.fchmod(fd, 0o2755)", "sh", true},
	{"fchmodat2", "import ctypes, os, shutil\nshutil.copy('/bin/sh', 'sh')\nlibc = ctypes.CDLL(None, use_errno=True)\nif libc.syscall(452, -100, b'sh', 0o4755, 0) != 0:\n    raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))", "sh", true},
	{"setxattr security.capability", "import os, shutil, struct\nshutil.copy('/bin/sh', 'sh')\nos.setxattr('sh', 'security.capability', struct.pack('<IIIII', 0x02000001, 1 << 13, 0, 0, 0))", "sh", true},
}

// python is the interpreter the cases use: the system's, which every user
// can run (a pyenv shim lives in root's home).
func python(t *testing.T) string {
	t.Helper()
	if _, err := os.Stat("/usr/bin/python3"); err == nil {
		return "/usr/bin/python3"
	}
	p, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	return p
}

// TestNoSetIDFiles: a sandboxed command cannot leave a set-user-ID or
// set-group-ID file, nor one with file capabilities, in the workspace or in
// /tmp, by any of setIDCases; each is refused with EPERM. The same
// commands unconfined do make the file (as the test's user may), so the
// refusal is the sandbox's.
func TestNoSetIDFiles(t *testing.T) {
	requireLandlock(t)
	py := python(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			tmp, err := os.MkdirTemp("/tmp", "agent-ls-setid")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(tmp) })
			dirs := []string{cwd, tmp}
			if m.noNS && len(ownReadOnlyRoots(ownPaths(Policy{}, ""), []string{"/tmp"})) > 0 {
				// Without a mount namespace /tmp is read-only while it
				// holds the running (test) binary: the workspace alone.
				t.Log("the test binary lies below /tmp, which therefore is read-only without a mount namespace: workspace cases only")
				dirs = dirs[:1]
			}
			for _, dir := range dirs {
				for i, c := range setIDCases {
					sub := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
					if err := os.Mkdir(sub, 0o755); err != nil {
						t.Fatal(err)
					}
					argv := []string{"sh", "-c", c.script}
					if c.python {
						argv = []string{py, "-c", c.script}
					}
					r := runIn(t, Policy{Mode: WorkspaceWrite, Root: cwd, Cwd: sub}, nil, argv...)
					where := "workspace"
					if dir == tmp {
						where = "/tmp"
					}
					if r.code == 0 {
						t.Errorf("%s in %s: the command succeeded\n%v", c.name, where, r)
					} else if !strings.Contains(r.stderr, "not permitted") {
						t.Errorf("%s in %s: failed, but not with EPERM\n%v", c.name, where, r)
					}
					checkNoSetID(t, filepath.Join(sub, c.file), c.name+" in "+where)
					if i == 0 && dir == cwd && m.name == "namespace" {
						t.Logf("%s: %s", c.name, strings.TrimSpace(r.stderr))
					}
				}
			}
		})
	}
}

// checkNoSetID fails when path is a set-user-ID or set-group-ID file or
// carries file capabilities.
func checkNoSetID(t *testing.T, path, what string) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		return // nothing made
	}
	if fi.Mode()&(os.ModeSetuid|os.ModeSetgid) != 0 {
		t.Errorf("ESCAPE: %s left %s with mode %v", what, path, fi.Mode())
	}
	buf := make([]byte, 64)
	if n, err := getxattr(path, "security.capability", buf); err == nil && n > 0 {
		t.Errorf("ESCAPE: %s left %s with file capabilities", what, path)
	}
}

// TestSetIDCasesWorkUnconfined proves the cases themselves make what the
// sandbox refuses: run directly, each leaves its set-ID file (file
// capabilities only as root).
func TestSetIDCasesWorkUnconfined(t *testing.T) {
	py := python(t)
	dir := t.TempDir()
	for _, c := range setIDCases {
		if strings.Contains(c.name, "capability") && os.Geteuid() != 0 {
			continue
		}
		sub := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "_"))
		if err := os.Mkdir(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("sh", "-c", c.script)
		if c.python {
			cmd = exec.Command(py, "-c", c.script)
		}
		cmd.Dir = sub
		if out, err := cmd.CombinedOutput(); err != nil {
			if strings.Contains(c.name, "fchmodat2") && strings.Contains(string(out), "Function not implemented") {
				continue // a kernel before 6.6
			}
			t.Errorf("%s unconfined: %v\n%s", c.name, err, out)
		}
	}
}

// TestSetgidDirectories: a set-group-ID directory is ordinary, and stays
// allowed: install -d -m 2775 (mkdir, then fchmod of the directory),
// chmod g+s (fchmodat by path), and mkdir -m 2775.
func TestSetgidDirectories(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			script := "install -d -m 2775 a && mkdir b && chmod g+s b && mkdir -m 2775 c && mkdir d && chmod 2770 d && mkdir e && cd e && chmod g+s ."
			r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, nil, "sh", "-c", script)
			if r.code != 0 {
				t.Fatalf("setgid directories failed in the sandbox\n%v", r)
			}
			for _, d := range []string{"a", "b", "c", "d", "e"} {
				fi, err := os.Stat(filepath.Join(cwd, d))
				if err != nil {
					t.Fatal(err)
				}
				if fi.Mode()&os.ModeSetgid == 0 {
					t.Errorf("%s: mode %v, want set-group-ID", d, fi.Mode())
				}
			}
		})
	}
}

// TestWritableRootsNosuid: inside the mount namespace the writable roots
// are mounted nosuid, the workspace and /tmp included.
func TestWritableRootsNosuid(t *testing.T) {
	requireLandlock(t)
	if c := Probe(); !c.Namespaces {
		t.Skip("!!!!!! SKIPPED: user namespaces unavailable (" + c.NamespaceNote + ") !!!!!!")
	}
	cwd, _ := workspace(t)
	py := python(t)
	script := "import os, sys\nfor d in sys.argv[1:]:\n    print(d, bool(os.statvfs(d).f_flag & os.ST_NOSUID))"
	r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, nil, py, "-c", script, cwd, "/tmp")
	if r.code != 0 {
		t.Fatalf("%v", r)
	}
	for _, d := range []string{cwd, "/tmp"} {
		if !strings.Contains(r.stdout, d+" True") {
			t.Errorf("%s is not mounted nosuid in the sandbox\n%v", d, r)
		}
	}
}

// TestMoveAcrossWritableRoots: each writable root is a mount of its own
// in the namespace, so rename(2) between two of them is EXDEV, as between
// filesystems; mv, and tools that handle EXDEV, copy instead, and a rename
// inside one root is a rename.
func TestMoveAcrossWritableRoots(t *testing.T) {
	requireLandlock(t)
	if c := Probe(); !c.Namespaces {
		t.Skip("!!!!!! SKIPPED: user namespaces unavailable (" + c.NamespaceNote + ") !!!!!!")
	}
	cwd, _ := workspace(t)
	tmp, err := os.MkdirTemp("/tmp", "agent-ls-move")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	script := "set -e; echo x > " + tmp + "/f; mv " + tmp + "/f moved; mkdir -p sub; echo y > sub/g; " + python(t) + " -c \"import os; os.rename('sub/g', 'g')\""
	if r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, nil, "sh", "-c", script); r.code != 0 {
		t.Fatalf("moves: %v", r)
	}
	for _, f := range []string{"moved", "g"} {
		if _, err := os.Stat(filepath.Join(cwd, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestMetadataOutsideTheRoots: Landlock does not confine chmod, chown,
// utimes or extended attributes, so inside the mount namespace every
// mount but the writable roots is read-only: a command cannot change the
// mode, owner or times of a file outside them (EROFS), in either mode,
// while inside the workspace it can.
func TestMetadataOutsideTheRoots(t *testing.T) {
	requireLandlock(t)
	if c := Probe(); !c.Namespaces {
		t.Skip("!!!!!! SKIPPED: user namespaces unavailable (" + c.NamespaceNote + ") !!!!!!")
	}
	cwd, outside := workspace(t)
	secret := filepath.Join(outside, "id_key")
	if err := os.WriteFile(secret, []byte("k"), 0o600); err != nil {
		t.Fatal(err)
	}
	mine := filepath.Join(cwd, "tool.sh")
	if err := os.WriteFile(mine, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	attempts := []struct{ name, script string }{
		{"chmod 666", "chmod 666 " + secret},
		{"chmod 000", "chmod 000 " + secret},
		{"touch -d", "touch -d 2000-01-01 " + secret},
		{"chown", "chown $(id -u):$(id -g) " + secret},
		{"setfattr", "python3 -c \"import os; os.setxattr('" + secret + "', 'user.x', b'1')\""},
	}
	before, err := os.Stat(secret)
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []policy.SandboxMode{WorkspaceWrite, ReadOnly} {
		for _, a := range attempts {
			r := runIn(t, Policy{Mode: mode, Cwd: cwd}, nil, "sh", "-c", a.script)
			if r.code == 0 {
				t.Errorf("ESCAPE (%s): %s outside the writable roots succeeded\n%v", mode, a.name, r)
			} else if !strings.Contains(r.stderr, "Read-only file system") {
				t.Errorf("%s (%s): failed, but not with EROFS\n%v", a.name, mode, r)
			}
		}
	}
	after, err := os.Stat(secret)
	if err != nil {
		t.Fatal(err)
	}
	if after.Mode() != before.Mode() || !after.ModTime().Equal(before.ModTime()) {
		t.Errorf("ESCAPE: %s changed: %v %v → %v %v", secret, before.Mode(), before.ModTime(), after.Mode(), after.ModTime())
	}
	if r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, nil, "sh", "-c", "chmod +x tool.sh && touch -d 2000-01-01 tool.sh"); r.code != 0 {
		t.Errorf("chmod and touch in the workspace: %v", r)
	}
	if fi, err := os.Stat(mine); err != nil || fi.Mode()&0o111 == 0 {
		t.Errorf("tool.sh is not executable: %v %v", fi, err)
	}
}

func getxattr(path, name string, buf []byte) (int, error) {
	return unix.Getxattr(path, name, buf)
}

// setgidRace flips a symlink between a directory and a file while another
// thread asks for set-group-ID on the link, many times: the supervisor
// checks what it opened and changes that, so the file never gets the bit.
const setgidRace = `import os, threading
os.mkdir('d')
open('f', 'w').close()
os.symlink('d', 'link')
stop = False
def flip():
    while not stop:
        for t in ('f', 'd'):
            os.symlink(t, 'link.new')
            os.replace('link.new', 'link')
th = threading.Thread(target=flip)
th.start()
ok = refused = 0
for i in range(3000):
    try:
        os.chmod('link', 0o2755)
        ok += 1
    except PermissionError:
        refused += 1
    except FileNotFoundError:
        pass
stop = True
th.join()
print('ok', ok, 'refused', refused)
`

// TestSetgidDirectoryChecks: the supervisor decides set-group-ID by what
// the call really names, with no more rights than the caller: through a
// directory descriptor, an empty path with AT_EMPTY_PATH, a symlink
// flipped between a directory and a file while it decides, and a
// directory of another user (which only CAP_FOWNER could change).
func TestSetgidDirectoryChecks(t *testing.T) {
	requireLandlock(t)
	py := python(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			p := Policy{Mode: WorkspaceWrite, Cwd: cwd}
			script := `import ctypes, os
os.mkdir('a'); os.mkdir('b'); os.mkdir('c'); open('c/f', 'w').close()
dfd = os.open('.', os.O_RDONLY | os.O_DIRECTORY)
os.chmod('a', 0o2755, dir_fd=dfd)
libc = ctypes.CDLL(None, use_errno=True)
bfd = os.open('b', os.O_RDONLY | os.O_DIRECTORY)
if libc.syscall(452, bfd, b'', 0o2755, 0x1000) != 0 and ctypes.get_errno() != 38:
    raise OSError(ctypes.get_errno(), 'fchmodat2 on a directory')
ffd = os.open('c/f', os.O_PATH)
if libc.syscall(452, ffd, b'', 0o2755, 0x1000) == 0:
    print('file got set-group-ID through AT_EMPTY_PATH')
cfd = os.open('c', os.O_RDONLY | os.O_DIRECTORY)
try:
    os.chmod('f', 0o2755, dir_fd=cfd)
    print('file got set-group-ID through a directory descriptor')
except PermissionError:
    pass
print('done')
`
			r := runIn(t, p, nil, py, "-c", script)
			if r.code != 0 || !strings.Contains(r.stdout, "done") || strings.Contains(r.stdout, "file got") {
				t.Errorf("%v", r)
			}
			for _, d := range []string{"a", "b"} {
				if fi, err := os.Stat(filepath.Join(cwd, d)); err != nil || fi.Mode()&os.ModeSetgid == 0 {
					t.Errorf("%s is not set-group-ID: %v %v", d, fi.Mode(), err)
				}
			}
			checkNoSetID(t, filepath.Join(cwd, "c", "f"), "a set-group-ID chmod of a file")

			race := filepath.Join(cwd, "race")
			os.Mkdir(race, 0o755)
			r = runIn(t, Policy{Mode: WorkspaceWrite, Root: cwd, Cwd: race}, nil, py, "-c", setgidRace)
			t.Logf("race: %s", strings.TrimSpace(r.stdout))
			if r.code != 0 {
				t.Errorf("%v", r)
			}
			checkNoSetID(t, filepath.Join(race, "f"), "chmod g+s on a symlink flipped to a file")

			if os.Geteuid() == 0 {
				other := filepath.Join(cwd, "other")
				os.Mkdir(other, 0o755)
				if err := os.Chown(other, 4242, 4242); err != nil {
					t.Fatal(err)
				}
				r = runIn(t, p, nil, "chmod", "g+s", other)
				if r.code == 0 {
					t.Errorf("chmod g+s of another user's directory worked in the sandbox\n%v", r)
				}
				if fi, _ := os.Stat(other); fi.Mode()&os.ModeSetgid != 0 {
					t.Errorf("ESCAPE: another user's directory became set-group-ID")
				}
			}
		})
	}
}
