package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, s := range []string{"untrusted", "on-failure", "on-request", "never"} {
		if p, err := ParseApprovalPolicy(s); err != nil || string(p) != s {
			t.Errorf("ParseApprovalPolicy(%q) = %q, %v", s, p, err)
		}
	}
	for _, s := range []string{"read-only", "workspace-write", "danger-full-access"} {
		if m, err := ParseSandboxMode(s); err != nil || string(m) != s {
			t.Errorf("ParseSandboxMode(%q) = %q, %v", s, m, err)
		}
	}
	if p, _ := ParseApprovalPolicy(""); p != OnRequest {
		t.Errorf("default approval policy = %q", p)
	}
	if m, _ := ParseSandboxMode(""); m != WorkspaceWrite {
		t.Errorf("default sandbox mode = %q", m)
	}
	_, err := ParseApprovalPolicy("sometimes")
	if err == nil || err.Error() != `unknown approval policy "sometimes" (use untrusted, on-failure, on-request or never)` {
		t.Errorf("bad approval policy: %v", err)
	}
	_, err = ParseSandboxMode("yolo")
	if err == nil || err.Error() != `unknown sandbox mode "yolo" (use read-only, workspace-write or danger-full-access)` {
		t.Errorf("bad sandbox mode: %v", err)
	}
}

// realTemp is a temporary directory with its own symlinks resolved.
func realTemp(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustSymlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func mustMkdir(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestResolve(t *testing.T) {
	base := realTemp(t)
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	mustMkdir(t, filepath.Join(ws, "sub"), out)
	mustSymlink(t, out, filepath.Join(ws, "outdir"))
	mustSymlink(t, filepath.Join(out, "secret"), filepath.Join(ws, "dangling"))
	mustSymlink(t, "sub", filepath.Join(ws, "rel"))
	mustSymlink(t, "loop2", filepath.Join(ws, "loop1"))
	mustSymlink(t, "loop1", filepath.Join(ws, "loop2"))
	if err := os.WriteFile(filepath.Join(ws, "file"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ in, want string }{
		{ws + "/sub/a.txt", ws + "/sub/a.txt"},
		{ws + "/outdir/x", out + "/x"},
		{ws + "/outdir/new/deeper/x", out + "/new/deeper/x"},
		{ws + "/dangling", out + "/secret"},
		{ws + "/rel/../file", ws + "/file"},
		// ".." after a link climbs from the link's target, not the text.
		{ws + "/outdir/../ws/file", ws + "/file"},
		{ws + "/sub/../../out/y", out + "/y"},
		{ws + "/missing/../file", ws + "/file"},
		{ws + "/file/below", ws + "/file/below"},
	}
	for _, c := range cases {
		got, err := Resolve(c.in)
		if err != nil || got != c.want {
			t.Errorf("Resolve(%s) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	if _, err := Resolve(ws + "/loop1/x"); !errors.Is(err, ErrLinkLoop) {
		t.Errorf("loop: %v", err)
	}
	if _, err := Resolve("relative/path"); err == nil {
		t.Error("a relative path resolved")
	}
}

func TestTarget(t *testing.T) {
	base := realTemp(t)
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	mustMkdir(t, filepath.Join(ws, "sub", ".git", "hooks"), filepath.Join(ws, ".git", "hooks"), out)
	mustSymlink(t, out, filepath.Join(ws, "outdir"))
	mustSymlink(t, filepath.Join(out, "f"), filepath.Join(ws, "outfile"))
	mustSymlink(t, filepath.Join(ws, "sub"), filepath.Join(ws, "insidelink"))
	mustSymlink(t, filepath.Join(ws, ".git"), filepath.Join(ws, "gitlink"))
	b, err := NewBoundary(WorkspaceWrite, ws, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		path     string
		writable bool
		why      string // a part of Why
	}{
		{ws + "/a.go", true, ""},
		{ws + "/sub/new/b.go", true, ""},
		{ws + "/insidelink/c.go", true, ""},
		{ws + "/outfile", false, "a symbolic link to " + out + "/f"},
		{ws + "/outdir/x", false, "outside the writable folders"},
		{ws + "/sub/../../out/z", false, "outside the writable folders"},
		{ws + "/.git/hooks/pre-commit", false, "protected"},
		{ws + "/.git/config", false, "protected"},
		{ws + "/.git", false, "protected"},
		{ws + "/.agents/AGENTS.md", false, "protected"},
		{ws + "/.agent-ls/config.toml", false, "protected"},
		{ws + "/gitlink/hooks/post-checkout", false, "protected"},
		{ws + "/sub/.git/hooks/pre-commit", false, "protected"},
		{ws + "/.gitignore", true, ""},
		{"/etc/passwd", false, "outside"},
	}
	for _, c := range cases {
		got := b.Target(c.path)
		if got.Writable != c.writable || !strings.Contains(got.Why, c.why) {
			t.Errorf("Target(%s) = writable %v, why %q; want %v, %q", c.path, got.Writable, got.Why, c.writable, c.why)
		}
	}
	if !b.Contains(ws+"/sub/x") || !b.Contains(ws) || b.Contains(ws+"/outdir/x") || b.Contains(out) {
		t.Error("Contains disagrees with the links")
	}
}

func TestTargetWorkspaceInsideTmp(t *testing.T) {
	// A workspace inside another writable root (/tmp): its protected names
	// stay protected even though /tmp itself is writable.
	ws, err := os.MkdirTemp("/tmp", "agent-ls-policy-ws-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	ws, _ = filepath.EvalSymlinks(ws)
	mustMkdir(t, filepath.Join(ws, ".git", "hooks"), filepath.Join(ws, "sub"))
	b, err := NewBoundary(WorkspaceWrite, ws, nil, TempRoots(""))
	if err != nil {
		t.Fatal(err)
	}
	if tg := b.Target(ws + "/../agent-ls-policy-elsewhere"); !tg.Writable {
		t.Errorf("/tmp not writable: %+v", tg)
	}
	if tg := b.Target(ws + "/sub/../.git/hooks/pre-commit"); tg.Writable {
		t.Errorf("hook writable: %+v", tg)
	}
	if tg := b.Target(ws + "/sub/ok.txt"); !tg.Writable {
		t.Errorf("sub not writable: %+v", tg)
	}
}

func TestTargetGitFile(t *testing.T) {
	// A linked worktree: .git is a file naming the real git directory,
	// which lies inside the writable roots here.
	base := realTemp(t)
	ws := filepath.Join(base, "ws")
	common := filepath.Join(ws, "main.git")
	gitdir := filepath.Join(common, "worktrees", "wt")
	wt := filepath.Join(ws, "wt")
	mustMkdir(t, filepath.Join(common, "hooks"), gitdir, wt)
	if err := os.WriteFile(filepath.Join(gitdir, "commondir"), []byte("../..\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+gitdir+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b, err := NewBoundary(WorkspaceWrite, wt, []string{ws}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{common + "/hooks/pre-commit", gitdir + "/HEAD", wt + "/.git"} {
		if tg := b.Target(p); tg.Writable {
			t.Errorf("%s writable", p)
		}
	}
	if tg := b.Target(ws + "/notes.txt"); !tg.Writable {
		t.Errorf("extra root not writable: %+v", tg)
	}
	var paths []string
	for _, p := range b.Protected() {
		paths = append(paths, p.Path)
	}
	got := strings.Join(paths, " ")
	for _, want := range []string{wt + "/.git", gitdir, common, ws + "/.git", wt + "/.agents"} {
		if !strings.Contains(" "+got+" ", " "+want+" ") {
			t.Errorf("Protected() = %s; missing %s", got, want)
		}
	}
}

func TestTargetModes(t *testing.T) {
	ws := realTemp(t)
	ro, _ := NewBoundary(ReadOnly, ws, nil, nil)
	if tg := ro.Target(ws + "/a"); tg.Writable || !strings.Contains(tg.Why, "read-only") {
		t.Errorf("read-only: %+v", tg)
	}
	full, _ := NewBoundary(DangerFullAccess, ws, nil, nil)
	if tg := full.Target("/etc/x"); !tg.Writable {
		t.Errorf("danger-full-access: %+v", tg)
	}
	if len(ro.WritableRoots()) != 0 || full.WritableRoots()[0] != "/" {
		t.Error("WritableRoots by mode")
	}
	if _, err := NewBoundary("bogus", ws, nil, nil); err == nil {
		t.Error("bogus mode accepted")
	}
	if _, err := NewBoundary(WorkspaceWrite, "rel", nil, nil); err == nil {
		t.Error("relative root accepted")
	}
}

func TestWritableTempRoots(t *testing.T) {
	for _, tc := range []struct {
		tmpdir               string
		noTmpdir, noSlashTmp bool
		want                 string
	}{
		{"/var/t/", false, false, "/tmp /var/t"},
		{"/var/t", true, false, "/tmp"},
		{"/var/t", false, true, "/var/t"},
		{"/var/t", true, true, ""},
		{"", false, false, "/tmp"},
		{"relative", false, true, ""},
		// Each is taken out on its own, as in Codex.
		{"/tmp", false, true, "/tmp"},
	} {
		got := strings.Join(WritableTempRoots(tc.tmpdir, tc.noTmpdir, tc.noSlashTmp), " ")
		if got != tc.want {
			t.Errorf("WritableTempRoots(%q, %v, %v) = %q, want %q", tc.tmpdir, tc.noTmpdir, tc.noSlashTmp, got, tc.want)
		}
	}
	if got := strings.Join(TempRoots("/var/t"), " "); got != "/tmp /var/t" {
		t.Errorf("TempRoots = %q: the host's temporary directories do not depend on what is writable", got)
	}
}

// TestTargetTempExclusions: with /tmp or $TMPDIR excluded, a file there is
// outside the writable roots (a change asks, or is refused under
// "never"), while the project root stays writable.
func TestTargetTempExclusions(t *testing.T) {
	ws := realTemp(t)
	tmpdir := outsideTmp(t)
	inTmp := "/tmp/agent-ls-policy-excluded/x"
	inTmpdir := filepath.Join(tmpdir, "x")
	for _, tc := range []struct {
		noTmpdir, noSlashTmp bool
		tmp, tmpd            bool // /tmp/... and $TMPDIR/... writable
	}{
		{false, false, true, true},
		{false, true, false, true},
		{true, false, true, false},
		{true, true, false, false},
	} {
		b, err := NewBoundary(WorkspaceWrite, ws, nil, WritableTempRoots(tmpdir, tc.noTmpdir, tc.noSlashTmp))
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("exclude_tmpdir_env_var=%v exclude_slash_tmp=%v", tc.noTmpdir, tc.noSlashTmp)
		if tg := b.Target(inTmp); tg.Writable != tc.tmp || (!tg.Writable && !strings.Contains(tg.Why, "outside the writable folders")) {
			t.Errorf("%s: %s: %+v, want writable %v", name, inTmp, tg, tc.tmp)
		}
		if tg := b.Target(inTmpdir); tg.Writable != tc.tmpd {
			t.Errorf("%s: %s: %+v, want writable %v", name, inTmpdir, tg, tc.tmpd)
		}
		if tg := b.Target(filepath.Join(ws, "a.go")); !tg.Writable {
			t.Errorf("%s: the project root is not writable: %+v", name, tg)
		}
		roots := strings.Join(b.WritableRoots(), " ")
		if strings.Contains(" "+roots+" ", " /tmp ") != tc.tmp {
			t.Errorf("%s: WritableRoots() = %s", name, roots)
		}
	}
}

// outsideTmp is a directory outside /tmp and $TMPDIR, resolved.
func outsideTmp(t *testing.T) string {
	t.Helper()
	base := "/var/tmp"
	if fi, err := os.Stat(base); err != nil || !fi.IsDir() {
		if base, err = os.UserCacheDir(); err != nil {
			t.Skip("no folder outside /tmp")
		}
	}
	d, err := os.MkdirTemp(base, "agent-ls-policy-")
	if err != nil {
		t.Skipf("no folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	d, err = filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	if Under(d, []string{"/tmp"}) {
		t.Skip("no folder outside /tmp")
	}
	return d
}

func TestNetworkMode(t *testing.T) {
	if m, err := ParseNetworkMode(""); err != nil || m != NetworkAsk {
		t.Errorf("default: %q %v", m, err)
	}
	if _, err := ParseNetworkMode("maybe"); err == nil {
		t.Error("accepted an unknown mode")
	}
	if !NarrowerNetwork(NetworkOff, NetworkAsk) || NarrowerNetwork(NetworkOn, NetworkAsk) || !NarrowerNetwork(NetworkAsk, NetworkAsk) {
		t.Error("NarrowerNetwork does not order off < ask < on")
	}
	if NetworkOn.Effective(ReadOnly) != NetworkOff || NetworkOff.Effective(DangerFullAccess) != NetworkOn || NetworkAsk.Effective(WorkspaceWrite) != NetworkAsk {
		t.Error("Effective ignores the sandbox mode")
	}
}
