package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// scratchInTmp is a fresh directory below /tmp itself, whatever $TMPDIR
// says, removed after the test.
func scratchInTmp(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "agent-ls-excl-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// mustDenyWrite: writing path failed with EACCES (Landlock) or EROFS, and
// nothing was made there.
func mustDenyWrite(t *testing.T, r result, path, why string) {
	t.Helper()
	mustBlock(t, r, why)
	if !strings.Contains(r.stdout, "(errno "+strconv.Itoa(int(unix.EACCES))+")") &&
		!strings.Contains(r.stdout, "(errno "+strconv.Itoa(int(unix.EROFS))+")") {
		t.Errorf("%s: want EACCES or EROFS\n%v", why, r)
	}
	if exists(path) {
		t.Errorf("ESCAPE: %s: %s exists", why, path)
	}
}

// shDenied: a shell redirection to path failed as a sandbox denial does,
// and left nothing there.
func shDenied(t *testing.T, r result, path, why string) {
	t.Helper()
	if r.code == 0 || !(strings.Contains(r.stderr, "Permission denied") || strings.Contains(r.stderr, "Read-only file system")) {
		t.Errorf("%s: want a permission or read-only error\n%v", why, r)
	}
	if exists(path) {
		t.Errorf("ESCAPE: %s: %s exists", why, path)
	}
}

// TestExcludeSlashTmp: with exclude_slash_tmp a command cannot write /tmp,
// by a shell redirection or a direct open, and still starts and writes
// its project (placeholders, the private /dev/shm and the cache root need
// no /tmp); without it, the same writes work.
func TestExcludeSlashTmp(t *testing.T) {
	requireLandlock(t)
	tmp := scratchInTmp(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			skipIfOwnBinaryInTmp(t, m.noNS)
			cwd, _ := workspace(t)
			p := Policy{Mode: WorkspaceWrite, Cwd: cwd, ExcludeSlashTmp: true}
			f := filepath.Join(tmp, m.name+"-sh")
			shDenied(t, runIn(t, p, nil, "sh", "-c", "echo x > "+f), f, "sh writing /tmp with /tmp excluded")
			g := filepath.Join(tmp, m.name+"-open")
			mustDenyWrite(t, attack(t, p, "write", g), g, "writing /tmp with /tmp excluded")
			mustDenyWrite(t, attack(t, p, "mkdir", g), g, "mkdir in /tmp with /tmp excluded")
			script := "echo x > in-project"
			if !m.noNS {
				script += " && echo y > /dev/shm/agent-ls-excl" // the private /dev/shm
			}
			mustWork(t, runIn(t, p, nil, "sh", "-c", script), "writing the project with /tmp excluded")
			if got, err := os.ReadFile(filepath.Join(cwd, "in-project")); err != nil || string(got) != "x\n" {
				t.Errorf("the project write did not land: %q %v", got, err)
			}

			p.ExcludeSlashTmp = false
			r := runIn(t, p, nil, "sh", "-c", "echo x > "+f)
			mustWork(t, r, "sh writing /tmp (control)")
			if got, err := os.ReadFile(f); err != nil || string(got) != "x\n" {
				t.Errorf("control: %s = %q, %v", f, got, err)
			}
			mustWork(t, attack(t, p, "write", g), "writing /tmp (control)")
		})
	}
}

// TestExcludeTmpdirEnvVar: with exclude_tmpdir_env_var the $TMPDIR of the
// command's environment, a folder outside the workspace and /tmp, is
// read-only, while /tmp stays writable (each is excluded on its own);
// without it $TMPDIR is writable.
func TestExcludeTmpdirEnvVar(t *testing.T) {
	requireLandlock(t)
	tmp := scratchInTmp(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			skipIfOwnBinaryInTmp(t, m.noNS)
			cwd, tmpdir := workspace(t)
			env := testEnv("TMPDIR=" + tmpdir)
			p := Policy{Mode: WorkspaceWrite, Cwd: cwd, ExcludeTmpdirEnvVar: true}
			f := filepath.Join(tmpdir, "sh")
			shDenied(t, runIn(t, p, env, "sh", "-c", `echo x > "$TMPDIR/sh"`), f, "sh writing $TMPDIR with $TMPDIR excluded")
			g := filepath.Join(tmpdir, "open")
			mustDenyWrite(t, runIn(t, p, env, selfPath(t), "attack", "write", g), g, "writing $TMPDIR with $TMPDIR excluded")
			inTmp := filepath.Join(tmp, m.name)
			mustWork(t, runIn(t, p, env, selfPath(t), "attack", "write", inTmp), "writing /tmp with only $TMPDIR excluded")

			p.ExcludeTmpdirEnvVar = false
			mustWork(t, runIn(t, p, env, "sh", "-c", `echo x > "$TMPDIR/sh"`), "sh writing $TMPDIR (control)")
			if got, err := os.ReadFile(f); err != nil || string(got) != "x\n" {
				t.Errorf("control: %s = %q, %v", f, got, err)
			}
			// Both excluded: neither is writable.
			p.ExcludeTmpdirEnvVar, p.ExcludeSlashTmp = true, true
			h := filepath.Join(tmp, m.name+"-both")
			mustDenyWrite(t, runIn(t, p, env, selfPath(t), "attack", "write", h), h, "writing /tmp with both excluded")
			mustDenyWrite(t, runIn(t, p, env, selfPath(t), "attack", "write", g), g, "writing $TMPDIR with both excluded")
		})
	}
}

// TestTempExclusionsInThePlan: the plan's Landlock rules leave out what is
// excluded, and the boundary the helper rebuilds says so too.
func TestTempExclusionsInThePlan(t *testing.T) {
	requireLandlock(t)
	cwd, tmpdir := workspace(t)
	env := testEnv("TMPDIR=" + tmpdir)
	for _, tc := range []struct {
		noTmpdir, noSlashTmp bool
		want                 []string // temporary directories among the rules
	}{
		{false, false, []string{"/tmp", tmpdir}},
		{false, true, []string{tmpdir}},
		{true, false, []string{"/tmp"}},
		{true, true, nil},
	} {
		p := Policy{Mode: WorkspaceWrite, Cwd: cwd, NoNamespace: true, ExcludeTmpdirEnvVar: tc.noTmpdir, ExcludeSlashTmp: tc.noSlashTmp}
		pl, _ := buildPlan(p, []string{"true"}, env, nil, false)
		if pl.fail != nil {
			t.Fatalf("%+v: %s", tc, pl.fail.msg)
		}
		var got []string
		for _, r := range pl.landlock.rules {
			if r.path == "/tmp" || r.path == tmpdir {
				got = append(got, r.path)
			}
		}
		pl.close()
		if !slices.Equal(got, tc.want) {
			t.Errorf("exclude_tmpdir_env_var=%v exclude_slash_tmp=%v: rules for %q, want %q", tc.noTmpdir, tc.noSlashTmp, got, tc.want)
		}
		if w := p.writableRoots(tmpdir); slices.Contains(w, "/tmp") == tc.noSlashTmp || slices.Contains(w, tmpdir) == tc.noTmpdir {
			t.Errorf("%+v: writable roots %q", tc, w)
		}
	}
}

// TestTempExclusionsAndTheCacheFallback: without a home directory the
// cache root falls back below $TMPDIR or /tmp, but never below one the
// policy excludes; with both excluded there is none, and the command runs
// with its environment unchanged.
func TestTempExclusionsAndTheCacheFallback(t *testing.T) {
	tmpdir := t.TempDir()
	noHome := []string{"HOME=/nonexistent/agent-ls-test", "TMPDIR=" + tmpdir}
	uid := "agent-ls-" + strconv.Itoa(os.Geteuid())
	for _, tc := range []struct {
		p    Policy
		want string
	}{
		{Policy{}, filepath.Join(tmpdir, uid, "sandbox")},
		{Policy{ExcludeSlashTmp: true}, filepath.Join(tmpdir, uid, "sandbox")},
		{Policy{ExcludeTmpdirEnvVar: true}, filepath.Join("/tmp", uid, "sandbox")},
		{Policy{ExcludeTmpdirEnvVar: true, ExcludeSlashTmp: true}, ""},
	} {
		if got := fallbackCacheRoot(tc.p, noHome); got != tc.want {
			t.Errorf("%+v: fallback %q, want %q", tc.p, got, tc.want)
		}
	}
	both := Policy{ExcludeTmpdirEnvVar: true, ExcludeSlashTmp: true}
	out, pinned, err := commandCaches(both, nil, noHome, []string{"/ws"})
	if err != nil || pinned != nil || !slices.Equal(out, noHome) {
		t.Errorf("both excluded, no home: pinned %v, env %q, %v", pinned, out, err)
	}
	if got := cacheRootOf(both, noHome); got != "" {
		t.Errorf("cacheRootOf = %q with nowhere to put one", got)
	}
}

// TestSocketRootsKeepExcludedTmpOut: /tmp and $TMPDIR stay host socket
// places when they are excluded from the writable roots: a configured
// root inside /tmp is no socket root, the project root still is, and a
// host socket in /tmp is unreachable while a server in the project
// works.
func TestSocketRootsKeepExcludedTmpOut(t *testing.T) {
	requireLandlock(t)
	requireUnixSockets(t)
	tmp := scratchInTmp(t)
	extra := filepath.Join(tmp, "extra")
	if err := os.Mkdir(extra, 0o755); err != nil {
		t.Fatal(err)
	}
	cwd, _ := workspace(t)
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, WritableRoots: []string{extra}, ExcludeSlashTmp: true}
	b, err := p.boundary("")
	if err != nil {
		t.Fatal(err)
	}
	roots := socketRoots(p, b, testEnv(), nil)
	if slices.Contains(roots, extra) || len(roots) != 1 || !underRoots(cwd, roots[0]) {
		t.Errorf("socket roots %q: want the project root alone, not %s", roots, extra)
	}
	host := filepath.Join(tmp, "host.sock")
	hits := countingListener(t, host)
	wantErrno(t, attack(t, p, "unix-connect", host), unix.EPERM, "connect to a socket in an excluded /tmp")
	mustWork(t, attack(t, p, "unix-bind", filepath.Join(cwd, "server.sock")), "bind in the project with /tmp excluded")
	if n := hits.Load(); n != 0 {
		t.Errorf("ESCAPE: the socket in /tmp got %d connections", n)
	}
}

// TestTempExclusionsExplained: --explain lists the writable roots without
// what is excluded, says which temporary directories stay read-only, and
// names the configured cache root.
func TestTempExclusionsExplained(t *testing.T) {
	requireLandlock(t)
	cwd, tmpdir := workspace(t)
	t.Setenv("TMPDIR", tmpdir)
	cache := filepath.Join(tmpdir, "cache")
	e := Explain(Policy{Mode: WorkspaceWrite, Cwd: cwd, CacheRoot: cache, ExcludeSlashTmp: true, ExcludeTmpdirEnvVar: true}, Probe())
	var writable string
	for _, l := range strings.Split(e, "\n") {
		if strings.HasPrefix(l, "writable: ") {
			writable = l
		}
	}
	if writable == "" || strings.Contains(writable+" ", " /tmp ") || strings.Contains(writable, tmpdir) {
		t.Errorf("the writable line lists an excluded directory: %q", writable)
	}
	for _, w := range []string{"but not /tmp (exclude_slash_tmp)", "but not $TMPDIR, " + tmpdir + " (exclude_tmpdir_env_var)", "caches:   " + cache} {
		if !strings.Contains(e, w) {
			t.Errorf("--explain lacks %q:\n%s", w, e)
		}
	}
	e = Explain(Policy{Mode: WorkspaceWrite, Cwd: cwd}, Probe())
	if strings.Contains(e, "but not") || !strings.Contains(e, " /tmp") {
		t.Errorf("--explain without exclusions:\n%s", e)
	}
}

// TestHelperCLITempExclusions: agent-ls sandbox typed by a person takes
// the same settings as flags.
func TestHelperCLITempExclusions(t *testing.T) {
	requireLandlock(t)
	tmp := scratchInTmp(t)
	cwd, _ := workspace(t)
	f := filepath.Join(tmp, "cli")
	shDenied(t, helperCLI(t, cwd, testEnv(), "--exclude-slash-tmp", "--", "sh", "-c", "echo x > "+f), f, "agent-ls sandbox --exclude-slash-tmp writing /tmp")
	mustWork(t, helperCLI(t, cwd, testEnv(), "--", "sh", "-c", "echo x > "+f), "agent-ls sandbox writing /tmp (control)")
	bad := filepath.Join(cwd, ".agent-ls", "cache")
	if r := helperCLI(t, cwd, testEnv(), "--cache-root", bad, "--", "true"); r.code != ExitSetupFailed || !strings.Contains(r.stderr, "cache_root") || !strings.Contains(r.stderr, bad) {
		t.Errorf("--cache-root inside .agent-ls: %v", r)
	}
	r := helperCLI(t, cwd, testEnv(), "--explain", "--exclude-slash-tmp", "--exclude-tmpdir-env-var")
	if r.code != 0 || !strings.Contains(r.stdout, "but not /tmp (exclude_slash_tmp)") {
		t.Errorf("--explain --exclude-slash-tmp: %v", r)
	}
}

// skipIfOwnBinaryInTmp skips a landlock-only test that needs /tmp
// writable when the running binary lies below /tmp (go test puts it
// there): without a mount namespace a writable root holding agent-ls's
// own binary is read-only (TestOwnFilesWithoutNamespace).
func skipIfOwnBinaryInTmp(t *testing.T, noNS bool) {
	t.Helper()
	if noNS && len(ownReadOnlyRoots(ownPaths(Policy{}, ""), []string{"/tmp"})) > 0 {
		t.Skip("the test binary lies below /tmp, which therefore is read-only without a mount namespace")
	}
}
