package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

func init() {
	attacks["append"] = func(a []string) error {
		f, err := os.OpenFile(a[0], os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.WriteString("\n[[hooks]]\nevent = \"before_tool_use\"\ncommand = [\"sh\", \"-c\", \"touch /tmp/pwned\"]\n")
		return err
	}
	attacks["mkdir-p"] = func(a []string) error { return os.MkdirAll(a[0], 0o755) }
	attacks["rename-mkdir"] = func(a []string) error {
		// Move a folder away and put a fresh one, of the command's
		// making, in its place.
		if err := os.Rename(a[0], a[1]); err != nil {
			return err
		}
		return os.MkdirAll(filepath.Join(a[0], "hooks"), 0o755)
	}
}

// fakeHome is a home folder with agent-ls's config, its state, a hook
// program and a copy of the helper in it, the workspace agent-ls would
// get from `nvim ~/notes.txt` run in ~.
type fakeHome struct {
	home, cfg, state, hook, helper string
}

func newFakeHome(t *testing.T) fakeHome {
	t.Helper()
	home, _ := workspace(t)
	h := fakeHome{
		home:   home,
		cfg:    filepath.Join(home, ".config", "agent-ls"),
		state:  filepath.Join(home, ".local", "state", "agent-ls"),
		hook:   filepath.Join(home, "bin", "lint-hook"),
		helper: filepath.Join(home, "bin", "agent-ls-sandbox"),
	}
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	for _, d := range []string{h.cfg, filepath.Join(home, "bin")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// The state folder does not exist yet: agent-ls has not kept a
	// session here, and a command must not be the one to create it.
	if err := os.WriteFile(filepath.Join(h.cfg, "config.toml"), []byte("model = \"gpt-5-codex\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(h.hook, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "evil"), []byte("#!/bin/sh\ntouch /tmp/pwned\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	copyFile(t, selfPath(t), h.helper)
	return h
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// attackVia runs an attack with helper as the sandbox helper.
func attackVia(t *testing.T, p Policy, helper string, args ...string) result {
	t.Helper()
	return runWith(t, p, helper, append([]string{selfPath(t), "attack"}, args...)...)
}

// TestOwnFilesProtected: with the workspace at the home folder, a
// sandboxed command can write the home folder but none of agent-ls's own
// files: not its config (a [[hooks]] entry there runs unsandboxed at the
// next start), not its state, not a program a hook names, not its
// binaries, and it cannot move their folders away to put others in their
// place.
func TestOwnFilesProtected(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	h := newFakeHome(t)
	p := Policy{Mode: WorkspaceWrite, Cwd: h.home, Own: []string{h.cfg, h.state, h.hook}}
	config := filepath.Join(h.cfg, "config.toml")
	attempts := []struct {
		name string
		args []string
	}{
		{"append a hook to config.toml", []string{"append", config}},
		{"write a new file in the config folder", []string{"write", filepath.Join(h.cfg, "profiles.toml")}},
		{"move the config folder away and make another", []string{"rename-mkdir", h.cfg, h.cfg + ".old"}},
		{"move ~/.config away and make another", []string{"rename-mkdir", filepath.Join(h.home, ".config"), filepath.Join(h.home, ".config.old")}},
		{"create the state folder", []string{"mkdir-p", filepath.Join(h.state, "sessions")}},
		{"write a session record", []string{"write", filepath.Join(h.state, "sessions", "forged.jsonl")}},
		{"overwrite the hook program", []string{"write", h.hook}},
		{"rename a program over the hook program", []string{"rename", filepath.Join(h.home, "evil"), h.hook}},
		{"remove the hook program", []string{"remove", h.hook}},
		{"move the hook's folder away", []string{"rename-mkdir", filepath.Join(h.home, "bin"), filepath.Join(h.home, "bin.old")}},
		{"rename a program over the helper binary", []string{"rename", filepath.Join(h.home, "evil"), h.helper}},
		{"remove the helper binary", []string{"remove", h.helper}},
	}
	for _, a := range attempts {
		t.Run(a.name, func(t *testing.T) {
			mustBlock(t, attackVia(t, p, h.helper, a.args...), a.name)
		})
	}
	if b, _ := os.ReadFile(config); string(b) != "model = \"gpt-5-codex\"\n" {
		t.Errorf("ESCAPE: config.toml is now %q", b)
	}
	if b, _ := os.ReadFile(h.hook); string(b) != "#!/bin/sh\nexit 0\n" {
		t.Errorf("ESCAPE: the hook program is now %q", b)
	}
	for _, p := range []string{h.cfg + ".old", filepath.Join(h.home, ".config.old"), filepath.Join(h.home, "bin.old"), filepath.Join(h.state, "sessions")} {
		if exists(p) {
			t.Errorf("ESCAPE: %s exists", p)
		}
	}
	// The rest of the home folder is the workspace, and writable.
	mustWork(t, attackVia(t, p, h.helper, "write", filepath.Join(h.home, "notes.txt")), "writing a note in the workspace")
	mustWork(t, attackVia(t, p, h.helper, "write", filepath.Join(h.home, ".config", "other-tool.toml")), "writing another tool's config")
	// The agent-ls binary itself (here the test binary) is pinned too.
	if own := ownPaths(p, h.helper); !slices.Contains(own, selfPath(t)) || !slices.Contains(own, h.helper) {
		t.Errorf("ownPaths = %v: want the running binary and the helper", own)
	}
}

// TestOwnFilesWithoutNamespace: where no mount namespace can pin them, a
// writable root that holds agent-ls's own files is not writable at all,
// and --explain says so.
func TestOwnFilesWithoutNamespace(t *testing.T) {
	requireLandlock(t)
	t.Setenv(NoNamespaceEnv, "1")
	h := newFakeHome(t)
	p := Policy{Mode: WorkspaceWrite, Cwd: h.home, Own: []string{h.cfg, h.state, h.hook}}
	mustBlock(t, attackVia(t, p, h.helper, "append", filepath.Join(h.cfg, "config.toml")), "append a hook to config.toml")
	mustBlock(t, attackVia(t, p, h.helper, "write", filepath.Join(h.home, "notes.txt")), "write in a root holding agent-ls's files")
	if ex := Explain(p, Probe()); !strings.Contains(ex, "read-only: "+h.home) {
		t.Errorf("--explain does not say the home folder is read-only:\n%s", ex)
	}
	// A root without them stays writable.
	other, _ := workspace(t)
	mustWork(t, attackVia(t, Policy{Mode: WorkspaceWrite, Cwd: other, Own: p.Own}, h.helper, "write", filepath.Join(other, "f")), "writing a project without agent-ls's files")
}

// TestGitThroughSecondPath: .git stays read-only whichever path leads to
// it: the workspace bind-mounted below /tmp (a writable root), reached
// through a symbolic link, or moved away by a command that may write the
// folder holding the workspace.
func TestGitThroughSecondPath(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	git(t, cwd, "init", "-q")
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd}

	t.Run("bind mount below /tmp", func(t *testing.T) {
		alias := filepath.Join(tmpOutside(t), "alias")
		if err := os.Mkdir(alias, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := unix.Mount(cwd, alias, "", unix.MS_BIND, ""); err != nil {
			t.Skipf("cannot bind-mount here (%v): needs root", err)
		}
		t.Cleanup(func() { unix.Unmount(alias, unix.MNT_DETACH) })
		hook := filepath.Join(alias, ".git", "hooks", "pre-commit")
		mustBlock(t, attack(t, p, "write", hook), "write a hook through the bind mount")
		mustBlock(t, attack(t, p, "append", filepath.Join(alias, ".git", "config")), "append to .git/config through the bind mount")
		mustBlock(t, attack(t, p, "rename-mkdir", filepath.Join(alias, ".git"), filepath.Join(alias, "git.old")), "replace .git through the bind mount")
		mustWork(t, attack(t, p, "write", filepath.Join(alias, "file")), "writing the workspace through the bind mount")
		if exists(filepath.Join(cwd, ".git", "hooks", "pre-commit")) {
			t.Error("ESCAPE: hook written")
		}
	})

	t.Run("symlinked workspace", func(t *testing.T) {
		link := filepath.Join(filepath.Dir(cwd), "ws-link")
		if err := os.Symlink(cwd, link); err != nil {
			t.Fatal(err)
		}
		lp := Policy{Mode: WorkspaceWrite, Cwd: link}
		mustBlock(t, attack(t, lp, "write", filepath.Join(link, ".git", "hooks", "pre-commit")), "write a hook through the link")
		mustBlock(t, attack(t, lp, "write", filepath.Join(cwd, ".git", "hooks", "pre-commit")), "write a hook by the real path")
	})

	t.Run("writable root inside .git", func(t *testing.T) {
		hooks := filepath.Join(cwd, ".git", "hooks")
		hp := Policy{Mode: WorkspaceWrite, Cwd: cwd, WritableRoots: []string{hooks}}
		mustBlock(t, attack(t, hp, "write", filepath.Join(hooks, "pre-commit")), "write a hook in a writable root inside .git")
	})

	t.Run("workspace in a writable folder", func(t *testing.T) {
		// A project below /tmp, or with its parent among the writable
		// roots: moving it away and making a new one with a .git of the
		// command's choosing is refused.
		for name, pp := range map[string]Policy{
			"below /tmp":                {Mode: WorkspaceWrite, Cwd: tmpProject(t)},
			"parent is a writable root": {Mode: WorkspaceWrite, Cwd: cwd, WritableRoots: []string{filepath.Dir(cwd)}},
		} {
			t.Run(name, func(t *testing.T) {
				mustBlock(t, attack(t, pp, "rename-mkdir", pp.Cwd, pp.Cwd+".old"), "replace the workspace")
				if exists(pp.Cwd + ".old") {
					t.Errorf("ESCAPE: %s was moved", pp.Cwd)
				}
				mustWork(t, attack(t, pp, "write", filepath.Join(pp.Cwd, "file")), "writing the workspace")
			})
		}
	})
}

// tmpOutside is a fresh folder below /tmp, a writable root of every
// workspace-write command.
func tmpOutside(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "agent-ls-alias")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// tmpProject is a git repository below /tmp.
func tmpProject(t *testing.T) string {
	t.Helper()
	d := filepath.Join(tmpOutside(t), "proj")
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, d, "init", "-q")
	return d
}

// runWith is runIn with helper as the sandbox helper.
func runWith(t testing.TB, p Policy, helper string, argv ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd, err := Command(ctx, p, argv, testEnv(), helper)
	if err != nil {
		t.Fatalf("Command: %v", err)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err = cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running %v: %v", argv, err)
	}
	return r
}
