package sandbox

import (
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestFilesystemEscapes tries the usual ways out of the writable roots, in
// both namespace modes.
func TestFilesystemEscapes(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, outside := workspace(t)
			p := Policy{Mode: WorkspaceWrite, Cwd: cwd}
			victim := filepath.Join(outside, "victim")
			if err := os.WriteFile(victim, []byte("original\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			inside := filepath.Join(cwd, "inside")
			if err := os.WriteFile(inside, []byte("inside\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(outside, filepath.Join(cwd, "out-link")); err != nil {
				t.Fatal(err)
			}

			cases := []struct {
				name string
				args []string
			}{
				{"write outside directly", []string{"write", filepath.Join(outside, "new")}},
				{"overwrite a file outside", []string{"write", victim}},
				{"write through a symlinked dir in the root", []string{"write", filepath.Join(cwd, "out-link", "new")}},
				{"write through a new symlink to a file outside", []string{"symlink-write", filepath.Join(cwd, "to-victim"), victim}},
				{"rename a file out of the root", []string{"rename", inside, filepath.Join(outside, "moved")}},
				{"rename a file outside into the root", []string{"rename", victim, filepath.Join(cwd, "stolen")}},
				{"hard link a file out of the root", []string{"link", inside, filepath.Join(outside, "linked")}},
				{"hard link a file outside into the root (then write it)", []string{"link", victim, filepath.Join(cwd, "victim-link")}},
				{"chdir outside, write via /proc/self/cwd", []string{"chdir-write", outside, "new"}},
				{"reopen a read-only fd for writing via /proc/self/fd", []string{"reopen-write", victim}},
				{"delete a file outside", []string{"remove", victim}},
				{"write /etc", []string{"write", "/etc/agent-ls-sandbox-test"}},
				{"mount a tmpfs over the outside dir", []string{"mount-tmpfs", outside}},
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					mustBlock(t, attack(t, p, c.args...), c.name)
				})
			}
			if b, _ := os.ReadFile(victim); string(b) != "original\n" {
				t.Errorf("ESCAPE: %s was changed to %q", victim, b)
			}
			for _, f := range []string{"new", "moved", "linked"} {
				if exists(filepath.Join(outside, f)) {
					t.Errorf("ESCAPE: %s was created outside the roots", f)
				}
			}
		})
	}
}

// TestReadOnlyMode: nothing but the devices is writable, not even the cwd
// or /tmp.
func TestReadOnlyMode(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	p := Policy{Mode: ReadOnly, Cwd: cwd}
	mustBlock(t, attack(t, p, "write", filepath.Join(cwd, "f")), "write in the cwd in read-only mode")
	tmp := t.TempDir()
	mustBlock(t, attack(t, p, "write", filepath.Join(tmp, "f")), "write in /tmp in read-only mode")
	mustWork(t, attack(t, p, "write", "/dev/null"), "writing /dev/null")
}

// TestProtectedPaths: .git (hooks included), a gitdir: target, and missing
// .agents/.agent-ls stay read-only with the mount namespace; without it the
// sandbox says they are not protected, and indeed they are not.
func TestProtectedPaths(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			git(t, cwd, "init", "-q")
			p := Policy{Mode: WorkspaceWrite, Cwd: cwd}
			hook := filepath.Join(cwd, ".git", "hooks", "pre-commit")
			attempts := []struct {
				name string
				args []string
			}{
				{"write a git hook", []string{"write", hook}},
				{"rewrite .git/config", []string{"write", filepath.Join(cwd, ".git", "config")}},
				{"rename .git away", []string{"rename", filepath.Join(cwd, ".git"), filepath.Join(cwd, "git-old")}},
				{"delete .git/HEAD", []string{"remove", filepath.Join(cwd, ".git", "HEAD")}},
				{"create the missing .agents (a skills dir)", []string{"mkdir", filepath.Join(cwd, ".agents", "skills")}},
				{"create the missing .agents (a file)", []string{"write", filepath.Join(cwd, ".agents", "AGENTS.md")}},
				{"create a file in the missing .agent-ls", []string{"write", filepath.Join(cwd, ".agent-ls", "config.toml")}},
				{"unmount the protection of .git", []string{"umount", filepath.Join(cwd, ".git")}},
				{"write a hook through a symlink made in the root", []string{"symlink-write", filepath.Join(cwd, "hook-link"), hook}},
				{"hard link .git/config out, then write it", []string{"link", filepath.Join(cwd, ".git", "config"), filepath.Join(cwd, "config-link")}},
			}
			summary := Probe().Summary()
			explain := Explain(p, Probe())
			if m.noNS {
				if !strings.Contains(summary, "NOT protected") || !strings.Contains(explain, "NOT enforced") {
					t.Fatalf("landlock-only mode must say protected paths are unenforced:\n%s\n%s", summary, explain)
				}
				// And it is honest: the write goes through.
				r := attack(t, p, "write", hook)
				if r.code != 0 {
					t.Errorf("landlock-only mode unexpectedly blocked the hook write; update the summary\n%v", r)
				}
				return
			}
			if !strings.Contains(summary, "stay read-only through a private mount namespace") {
				t.Errorf("summary does not claim the protection:\n%s", summary)
			}
			for _, a := range attempts {
				t.Run(a.name, func(t *testing.T) {
					mustBlock(t, attack(t, p, a.args...), a.name)
				})
			}
			// A nested user namespace cannot lift the read-only mount.
			r := runIn(t, p, nil, "unshare", "-Urm", "sh", "-c", "mount -o remount,bind,rw .git; umount -l .git; echo pwned > .git/hooks/post-checkout")
			if r.code == 0 || exists(filepath.Join(cwd, ".git", "hooks", "post-checkout")) {
				t.Errorf("ESCAPE: nested namespace made .git writable\n%v", r)
			}
			if exists(hook) {
				t.Errorf("ESCAPE: hook written")
			}
			if fi, err := os.Stat(filepath.Join(cwd, ".agents")); err == nil {
				if ents, _ := os.ReadDir(filepath.Join(cwd, ".agents")); !fi.IsDir() || len(ents) != 0 {
					t.Errorf(".agents is not an empty placeholder: %v", ents)
				}
			}
			// Placeholders go away when asked, leaving the tree as it was.
			if err := RemovePlaceholders(p); err != nil {
				t.Fatal(err)
			}
			for _, n := range []string{".agents", ".agent-ls"} {
				if exists(filepath.Join(cwd, n)) {
					t.Errorf("placeholder %s left behind", n)
				}
			}
		})
	}
}

// TestGitdirFile: a worktree's .git file, the gitdir it names and the common
// dir holding hooks are all protected when they lie inside writable roots.
func TestGitdirFile(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	main := filepath.Join(cwd, "main")
	if err := os.Mkdir(main, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, main, "init", "-q")
	git(t, main, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-q", "--allow-empty", "-m", "init")
	git(t, main, "worktree", "add", "-q", filepath.Join(cwd, "wt"))
	p := Policy{Mode: WorkspaceWrite, Cwd: filepath.Join(cwd, "wt"), WritableRoots: []string{main}}
	mustBlock(t, attack(t, p, "write", filepath.Join(main, ".git", "hooks", "pre-commit")), "hook in the common dir")
	mustBlock(t, attack(t, p, "write", filepath.Join(main, ".git", "worktrees", "wt", "HEAD")), "worktree gitdir")
	mustBlock(t, attack(t, p, "write", filepath.Join(cwd, "wt", ".git")), "the .git file itself")
	mustWork(t, attack(t, p, "write", filepath.Join(cwd, "wt", "file")), "writing in the worktree")
	r := runIn(t, p, nil, "git", "status", "--short")
	mustWork(t, r, "git status in the worktree")
}

// TestSymlinkedProtectedPath: a .git symlink can be neither replaced nor
// used to write into its target.
func TestSymlinkedProtectedPath(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	real := filepath.Join(cwd, "real-git")
	if err := os.Mkdir(real, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real-git", filepath.Join(cwd, ".git")); err != nil {
		t.Fatal(err)
	}
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd}
	mustBlock(t, attack(t, p, "remove", filepath.Join(cwd, ".git")), "remove the .git symlink")
	mustBlock(t, attack(t, p, "write", filepath.Join(real, "config")), "write into the symlink's target")
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestNetwork: with the network off no socket reaches a listener on
// loopback (TCP and UDP, v4 and v6) nor an outside Unix socket; with it on,
// they do.
func TestNetwork(t *testing.T) {
	requireLandlock(t)
	var targets []*inbox
	for _, n := range []struct{ network, addr string }{
		{"tcp4", "127.0.0.1:0"}, {"tcp6", "[::1]:0"}, {"udp4", "127.0.0.1:0"}, {"udp6", "[::1]:0"},
	} {
		if b, ok := listenInbox(t, n.network, n.addr); ok {
			targets = append(targets, b)
		}
	}
	unixSock := filepath.Join(t.TempDir(), "host.sock")
	ul, err := net.Listen("unix", unixSock)
	if err != nil {
		t.Fatal(err)
	}
	defer ul.Close()

	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			off := Policy{Mode: WorkspaceWrite, Cwd: cwd}
			on := Policy{Mode: WorkspaceWrite, Cwd: cwd, Network: true}
			for _, tg := range targets {
				mustBlock(t, attack(t, off, "dial", tg.network, tg.addr), tg.network+" to loopback with the network off")
				if got := tg.quietBefore(t); len(got) > 0 {
					t.Errorf("ESCAPE: the %s listener got traffic from the sandbox: %q", tg.network, got)
				}
				mustWork(t, attack(t, on, "dial", tg.network, tg.addr), tg.network+" with --network")
				if p, err := tg.next(); err != nil || p != "hello\n" {
					t.Errorf("%s listener got %q (%v) with the network on, want the sandbox's hello", tg.network, p, err)
				}
			}
			mustBlock(t, attack(t, off, "unix-connect", unixSock), "connect to a Unix socket outside")
			if r := attack(t, off, "x32-socket"); r.code == 0 {
				t.Errorf("ESCAPE: socket() through the x32 syscall ABI\n%v", r)
			} else {
				t.Logf("x32 socket(): exit %d %s", r.code, strings.TrimSpace(r.stdout))
			}
			mustWork(t, attack(t, on, "unix-connect", unixSock), "Unix socket with --network")
		})
	}
}

// TestProcessAttacks: io_uring, ptrace and process_vm_readv of a sibling,
// and signals to processes outside the sandbox are refused; each attack is
// first shown to work unconfined.
func TestProcessAttacks(t *testing.T) {
	requireLandlock(t)
	sib := exec.Command("sleep", "60")
	if err := sib.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { sib.Process.Kill(); sib.Wait() }()
	pid := strconv.Itoa(sib.Process.Pid)
	attacks := [][]string{{"io_uring"}, {"ptrace", pid}, {"vm-read", pid}, {"kill", pid},
		{"read-proc", pid, "environ"}, {"read-proc", pid, "mem"}}
	for _, a := range attacks {
		if r := unconfined(t, a...); r.code != 0 {
			t.Logf("%s does not work even unconfined here: %v", a[0], r)
		}
	}
	// TIOCSTI on a pipe fails with ENOTTY unconfined; the filter must
	// answer first, with EPERM.
	if r := unconfined(t, "tiocsti"); !strings.Contains(r.stdout, "inappropriate ioctl") {
		t.Logf("tiocsti unconfined: %v", r)
	}
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			for _, network := range []bool{false, true} {
				p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Network: network}
				for _, a := range attacks {
					if a[0] == "kill" && LandlockABI() < 6 {
						continue // signal scoping needs Landlock ABI 6
					}
					r := attack(t, p, a...)
					mustBlock(t, r, strings.Join(a, " ")+" (network "+strconv.FormatBool(network)+")")
				}
				r := attack(t, p, "tiocsti")
				mustBlock(t, r, "TIOCSTI")
				if !strings.Contains(r.stdout, "operation not permitted") {
					t.Errorf("TIOCSTI not refused by the filter: %v", r)
				}
			}
		})
	}
}

// TestSetuidGainsNothing: a setuid binary owned by another user runs with
// the caller's euid inside the sandbox (no_new_privs, and in the namespace
// an unmapped owner), though outside it switches.
func TestSetuidGainsNothing(t *testing.T) {
	requireLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to chown the setuid copy")
	}
	dir, err := os.MkdirTemp(outsideBase(t), "setuid")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.Chmod(dir, 0o755)
	bin := filepath.Join(dir, "euid")
	data, err := os.ReadFile(selfPath(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	const other = 4242
	if err := os.Chown(bin, other, other); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(bin, os.ModeSetuid|0o755); err != nil {
		t.Fatal(err)
	}
	ctl := exec.Command(bin, "attack", "euid")
	ctl.Env = testEnv()
	out, _ := ctl.Output()
	if !strings.Contains(string(out), "euid 4242") {
		t.Skipf("setuid does not take effect here even unconfined (%q): nothing to test", out)
	}
	want := "euid " + strconv.Itoa(os.Geteuid())
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: cwd}, nil, bin, "attack", "euid")
			if !strings.Contains(r.stdout, want) {
				t.Errorf("ESCAPE: setuid binary changed identity inside the sandbox (want %q)\n%v", want, r)
			}
		})
	}
}
