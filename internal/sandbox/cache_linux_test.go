package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestDefaultCacheRoot(t *testing.T) {
	cases := []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/home/u", "XDG_CACHE_HOME=/c"}, "/c/agent-ls/sandbox"},
		{[]string{"HOME=/home/u"}, "/home/u/.cache/agent-ls/sandbox"},
		{[]string{"HOME=/home/u", "XDG_CACHE_HOME=relative"}, "/home/u/.cache/agent-ls/sandbox"},
		{[]string{"PATH=/bin"}, ""},
	}
	for _, c := range cases {
		if got := DefaultCacheRoot(c.env); got != c.want {
			t.Errorf("DefaultCacheRoot(%q) = %q, want %q", c.env, got, c.want)
		}
	}
}

func TestCacheEnv(t *testing.T) {
	env := []string{
		"HOME=/home/u", "PATH=/bin", "GOCACHE=/home/u/.cache/go-build", "GOMODCACHE=/home/u/go/pkg/mod",
		"NPM_CONFIG_CACHE=/home/u/.npm", "npm_config_cache=/home/u/.npm", "XDG_CACHE_HOME=/home/u/.cache",
		"GOTMPDIR=/home/u/gotmp", "CARGO_TARGET_DIR=/ws/target", "PIP_CACHE_DIR=/home/u/.cache/pip",
	}
	got := CacheEnv(env, "/c", []string{"/ws", "/tmp"})
	want := []string{
		"HOME=/home/u", "PATH=/bin", "GOMODCACHE=/home/u/go/pkg/mod", "CARGO_TARGET_DIR=/ws/target",
		"GOCACHE=/c/go-build", "PIP_CACHE_DIR=/c/pip", "npm_config_cache=/c/npm", "XDG_CACHE_HOME=/c/xdg",
	}
	if !slices.Equal(got, want) {
		t.Errorf("CacheEnv\n got %q\nwant %q", got, want)
	}
	// A target directory outside the writable roots is dropped, so cargo
	// builds in the workspace.
	got = CacheEnv([]string{"CARGO_TARGET_DIR=/home/u/target", "GOTMPDIR=/tmp/go"}, "/c", []string{"/ws", "/tmp"})
	if slices.Contains(got, "CARGO_TARGET_DIR=/home/u/target") || !slices.Contains(got, "GOTMPDIR=/tmp/go") {
		t.Errorf("CacheEnv kept an unwritable CARGO_TARGET_DIR or dropped a writable GOTMPDIR: %q", got)
	}
}

// TestCacheRootChecks: a cache root that holds the user's own caches, or
// that someone else owns, is refused; without HOME the fallback is a
// directory of this user's below TMPDIR.
func TestCacheRootChecks(t *testing.T) {
	home := t.TempDir()
	env := []string{"HOME=" + home}
	for _, bad := range []string{home, filepath.Join(home, ".cache"), filepath.Join(home, ".cache", "go-build")} {
		if _, _, err := commandCaches(Policy{CacheRoot: bad}, nil, env, nil); err == nil {
			t.Errorf("cache root %s holding the user's caches was accepted", bad)
		}
	}
	// A symlink leading the root onto the user's caches.
	if err := os.MkdirAll(filepath.Join(home, ".cache", "go-build"), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), "root")
	if err := os.Symlink(filepath.Join(home, ".cache"), link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := commandCaches(Policy{CacheRoot: link}, nil, env, nil); err == nil {
		t.Error("a cache root that is a symlink to the user's ~/.cache was accepted")
	}
	if _, _, err := commandCaches(Policy{CacheRoot: "relative"}, nil, env, nil); err == nil {
		t.Error("a relative cache root was accepted")
	}
	shared := filepath.Join(t.TempDir(), "shared")
	if err := os.Mkdir(shared, 0o777); err != nil {
		t.Fatal(err)
	}
	os.Chmod(shared, 0o777)
	if _, _, err := commandCaches(Policy{CacheRoot: shared}, nil, env, nil); err == nil || !strings.Contains(err.Error(), "writable by it alone") {
		t.Errorf("a world-writable cache root was accepted: %v", err)
	}
	tmp := t.TempDir()
	noHome := []string{"HOME=/nonexistent/agent-ls-test", "TMPDIR=" + tmp}
	out, dir, err := commandCaches(Policy{}, nil, noHome, []string{"/ws"})
	if err != nil {
		t.Fatal(err)
	}
	root := fallbackCacheRoot(Policy{}, noHome)
	if !strings.HasPrefix(root, tmp+"/") || dir == nil || !slices.Contains(out, "GOCACHE="+filepath.Join(root, "go-build")) {
		t.Errorf("fallback: root %s, pinned %v, env %q", root, dir, out)
	}
	if pinned, err := os.Readlink(fmt.Sprintf("/proc/self/fd/%d", dir.Fd())); err != nil || pinned != root || dir.Name() != root {
		t.Errorf("the Landlock rule's directory is %s (%s, %v), want the cache root %s pinned", dir.Name(), pinned, err, root)
	}
	dir.Close()
	if fi, err := os.Stat(root); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("fallback root: %v %v", fi, err)
	}
	// In a writable root a sandboxed command could plant a symlink where
	// the root goes, to get the next command write access elsewhere: no
	// symlink is followed there.
	elsewhere := t.TempDir()
	if err := os.RemoveAll(root); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, root); err != nil {
		t.Fatal(err)
	}
	out, dir, err = commandCaches(Policy{}, nil, noHome, []string{"/ws", tmp})
	if err != nil || dir != nil || slices.ContainsFunc(out, func(kv string) bool { return strings.HasPrefix(kv, "GOCACHE=") }) {
		t.Errorf("a planted symlink was followed: pinned %v, env %q, %v", dir, out, err)
	}
	if _, _, err := commandCaches(Policy{CacheRoot: root}, nil, noHome, []string{"/ws", tmp}); err == nil {
		t.Error("an explicit cache root through a planted symlink was accepted")
	}
	if _, _, err := commandCaches(Policy{CacheRoot: root}, nil, noHome, []string{"/ws"}); err != nil {
		t.Errorf("a symlinked cache root outside the writable roots was refused: %v", err)
	}
}

// TestUserCachesStayReadOnly: inside the sandbox the toolchains see the
// cache root, which is writable, and the user's own build cache is not.
func TestUserCachesStayReadOnly(t *testing.T) {
	requireLandlock(t)
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("go is not on PATH")
	}
	out, err := exec.Command(goBin, "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	userCache := strings.TrimSpace(string(out))
	if err := os.MkdirAll(userCache, 0o755); err != nil {
		t.Fatal(err)
	}
	cwd, _ := workspace(t)
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd}
	root := DefaultCacheRoot(os.Environ())
	if within(userCache, "/tmp", os.TempDir(), cwd) {
		t.Skipf("the user's GOCACHE %s is below a writable root here", userCache)
	}
	r := runIn(t, p, nil, "go", "env", "GOCACHE", "GOMODCACHE")
	mustWork(t, r, "go env")
	if lines := strings.Fields(r.stdout); len(lines) != 2 || lines[0] != filepath.Join(root, "go-build") {
		t.Errorf("go env GOCACHE inside the sandbox: %q, want %s", r.stdout, filepath.Join(root, "go-build"))
	}
	poison := filepath.Join(userCache, "agent-ls-poison")
	mustBlock(t, attack(t, p, "write", poison), "writing the user's own GOCACHE")
	if exists(poison) {
		os.Remove(poison)
		t.Errorf("ESCAPE: wrote into the user's build cache")
	}
	mustWork(t, attack(t, p, "write", filepath.Join(root, "agent-ls-test")), "writing the sandbox's cache root")
	os.Remove(filepath.Join(root, "agent-ls-test"))
	// Read-only mode gets no writable cache.
	mustBlock(t, attack(t, Policy{Mode: ReadOnly, Cwd: cwd}, "write", filepath.Join(root, "agent-ls-test")), "writing the cache root in read-only mode")
}

// TestCachesExplained: the model's summary and --explain say where the
// caches are, that the user's own stay read-only, and what sockets work.
func TestCachesExplained(t *testing.T) {
	requireLandlock(t)
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	os.Unsetenv("XDG_CACHE_HOME")
	c := Probe()
	want := filepath.Join(home, ".cache", "agent-ls", "sandbox")
	if c.CacheRoot != want {
		t.Errorf("Probe().CacheRoot = %q, want %q", c.CacheRoot, want)
	}
	s := c.Summary()
	for _, w := range []string{want, "GOCACHE", "user's own build caches", "read-only", "socketpairs", "connect, bind, listen and datagram sockets do not"} {
		if !strings.Contains(s, w) {
			t.Errorf("summary lacks %q: %s", w, s)
		}
	}
	e := Explain(Policy{Mode: WorkspaceWrite, Cwd: home}, c)
	for _, w := range []string{"caches:   " + want, "own build caches stay read-only", "no datagram sockets", "sendto with an address"} {
		if !strings.Contains(e, w) {
			t.Errorf("--explain lacks %q:\n%s", w, e)
		}
	}
	if e := Explain(Policy{Mode: ReadOnly, Cwd: home}, c); strings.Contains(e, "caches:") {
		t.Errorf("read-only mode has no writable caches, yet --explain lists them:\n%s", e)
	}
}

// TestPlanPassesCacheRoot: an explicit cache root reaches the helper in
// workspace-write mode only, as the descriptor its Landlock rule names.
func TestPlanPassesCacheRoot(t *testing.T) {
	requireLandlock(t)
	cwd, _ := workspace(t)
	root := filepath.Join(t.TempDir(), "cache")
	for _, p := range []Policy{{Mode: WorkspaceWrite}, {Mode: ReadOnly}} {
		p.Cwd, p.CacheRoot, p.NoNamespace = cwd, root, true
		pl, env := buildPlan(p, []string{"true"}, testEnv(), nil, false)
		if pl.fail != nil {
			t.Fatalf("%s: %s", p.Mode, pl.fail.msg)
		}
		got := pl.cacheRoot != nil && pl.cacheRoot.Name() == root &&
			slices.ContainsFunc(pl.landlock.rules, func(r landlockRule) bool { return r.path == cacheRootRule }) &&
			slices.Contains(env, "GOCACHE="+filepath.Join(root, "go-build"))
		if want := p.Mode == WorkspaceWrite; got != want {
			t.Errorf("%s: cache root %s passed: %v, want %v (%+v)", p.Mode, root, got, want, pl.landlock.rules)
		}
		pl.close()
	}
}

// TestExplicitCacheRoot: a configured cache root is where the toolchains
// of a sandboxed command keep their caches, and writable, without opening
// its parent; one below an excluded /tmp works too, while the rest of
// /tmp stays read-only.
func TestExplicitCacheRoot(t *testing.T) {
	requireLandlock(t)
	cwd, outside := workspace(t)
	root := filepath.Join(outside, "cache")
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, CacheRoot: root}
	r := runIn(t, p, nil, "go", "env", "GOCACHE")
	mustWork(t, r, "go env GOCACHE")
	if got := strings.TrimSpace(r.stdout); got != filepath.Join(root, "go-build") {
		t.Errorf("go env GOCACHE inside the sandbox = %q, want %s", got, filepath.Join(root, "go-build"))
	}
	mustWork(t, runIn(t, p, nil, "sh", "-c", `mkdir -p "$GOCACHE" && echo x > "$GOCACHE/probe"`), "writing below GOCACHE")
	if got, err := os.ReadFile(filepath.Join(root, "go-build", "probe")); err != nil || string(got) != "x\n" {
		t.Errorf("the write below GOCACHE did not land in the cache root: %q %v", got, err)
	}
	beside := filepath.Join(outside, "beside")
	mustBlock(t, attack(t, p, "write", beside), "writing beside the cache root")
	if exists(beside) {
		t.Errorf("ESCAPE: the cache root's parent was writable")
	}

	tmp := scratchInTmp(t)
	inTmp := Policy{Mode: WorkspaceWrite, Cwd: cwd, CacheRoot: filepath.Join(tmp, "cache"), ExcludeSlashTmp: true}
	mustWork(t, attack(t, inTmp, "write", filepath.Join(tmp, "cache", "f")), "writing a cache root below an excluded /tmp")
	mustDenyWrite(t, attack(t, inTmp, "write", filepath.Join(tmp, "g")), filepath.Join(tmp, "g"), "writing /tmp beside the cache root")
}

// TestUnusableCacheRootRefused: a configured cache root inside a protected
// path, around the project, or that is no directory fails the command with
// an error naming the setting and the path, and nothing is created.
func TestUnusableCacheRootRefused(t *testing.T) {
	requireLandlock(t)
	cwd, outside := workspace(t)
	if err := os.MkdirAll(filepath.Join(cwd, ".git", "hooks"), 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(outside, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ root, want string }{
		{filepath.Join(cwd, ".git", "cache"), "inside " + filepath.Join(cwd, ".git") + ", which stays read-only"},
		{filepath.Join(cwd, ".git", "hooks"), "inside " + filepath.Join(cwd, ".git") + ", which stays read-only"},
		{filepath.Join(cwd, ".agents", "cache"), "inside " + filepath.Join(cwd, ".agents") + ", which stays read-only"},
		{filepath.Join(cwd, "sub", ".git", "cache"), "inside " + filepath.Join(cwd, "sub", ".git") + ", which stays read-only"},
		{filepath.Dir(cwd), "holds " + filepath.Join(cwd, ".git") + ", which stays read-only"},
		{cwd, "holds " + filepath.Join(cwd, ".git") + ", which stays read-only"},
		{file, "is not a directory"},
		{filepath.Join(file, "sub"), "not a directory"},
	} {
		for _, m := range nsModes {
			t.Run(filepath.Base(tc.root)+"/"+m.name, func(t *testing.T) {
				m.setup(t)
				p := Policy{Mode: WorkspaceWrite, Cwd: cwd, CacheRoot: tc.root}
				r := runIn(t, p, nil, "true")
				if r.code != ExitSetupFailed || !strings.Contains(r.stderr, "cache_root") || !strings.Contains(r.stderr, tc.root) || !strings.Contains(r.stderr, tc.want) {
					t.Errorf("cache root %s: want exit %d naming cache_root, the path and %q\n%v", tc.root, ExitSetupFailed, tc.want, r)
				}
			})
		}
		if existed := tc.root == filepath.Join(cwd, ".git", "hooks"); strings.Contains(tc.root, "/.") && !existed && exists(tc.root) {
			t.Errorf("the refused cache root %s was created", tc.root)
		}
	}
	if exists(filepath.Join(cwd, ".agents")) || exists(filepath.Join(cwd, "sub")) {
		t.Error("a refused cache root was created")
	}
}
