package sandbox

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestAsNobody runs this package's tests again as an unprivileged user
// (nobody, through setpriv), with a HOME it owns and nothing else of
// root's: as root every directory is writable and every permission
// mistake hides. The everyday-work table then finds nobody's default Go
// build cache read-only, as for any user.
func TestAsNobody(t *testing.T) {
	requireLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("needs root to switch to nobody; this run is unprivileged already")
	}
	setpriv, err := exec.LookPath("setpriv")
	if err != nil {
		t.Fatal("setpriv is not installed (util-linux; scripts/deps.sh installs it)")
	}
	dir, err := os.MkdirTemp(outsideBase(t), "nobody")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	// The test binary may sit below a directory only root can enter.
	bin := filepath.Join(dir, "sandbox.test")
	data, err := os.ReadFile(selfPath(t))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	home := filepath.Join(dir, "home")
	for _, d := range []string{dir, home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.Chmod(dir, 0o755)
	if err := os.Chown(home, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	cache := nobodyCache(t)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, setpriv, "--reuid=nobody", "--regid=nogroup", "--clear-groups", "--",
		bin, "-test.count=1", "-test.v", "-test.run", ".")
	cmd.Dir = home
	cmd.Env = append(nobodyEnv(home), "XDG_CACHE_HOME="+cache)
	out, err := cmd.CombinedOutput()
	summary := testSummary(string(out))
	if err != nil {
		t.Fatalf("the package's tests failed as nobody: %v\n%s", err, out)
	}
	t.Logf("the package's tests as nobody:\n%s", summary)
	for _, must := range []string{"--- PASS: TestEverydayWork", "--- PASS: TestFilesystemEscapes", "--- PASS: TestHostServicesUnreachable", "--- PASS: TestUnixSocketRules",
		"--- PASS: TestUnixServerInWorkspace", "--- PASS: TestUnixSocketsOutsideRoots", "--- PASS: TestUnixConnectAddressRace",
		"--- PASS: TestUnixSocketSecondName", "--- PASS: TestUnixSocketAcrossCommands", "--- PASS: TestUnixProjectSockets",
		"--- PASS: TestSessionLoopback (", "--- PASS: TestSessionLoopbackHostUnreachable", "--- PASS: TestSessionNetNoAdmin",
		"--- PASS: TestSessionNetLifetime", "--- PASS: TestSessionNetGoneAfterKill", "--- PASS: TestSessionSocketRules"} {
		if !strings.Contains(summary, must) {
			t.Errorf("as nobody, %q is missing", must)
		}
	}
}

// nobodyCache is nobody's XDG_CACHE_HOME. It outlives the test, like any
// user's cache, so only a machine's first run compiles the standard
// library into the sandbox's cache (a minute on a small machine); it is
// made anew when it is not nobody's own.
func nobodyCache(t *testing.T) string {
	t.Helper()
	const nobody = 65534
	dir := filepath.Join(outsideBase(t), "agent-ls-sandbox-test-nobody-cache")
	if fi, err := os.Lstat(dir); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.IsDir() && st.Uid == nobody && fi.Mode().Perm() == 0o700 {
			return dir
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	return dir
}

// nobodyEnv is the environment of the run as nobody: this one without
// root's paths (caches, Go paths, runtime dir) and PATH entries nobody
// cannot reach, with HOME set to home.
func nobodyEnv(home string) []string {
	env := []string{"HOME=" + home, "USER=nobody", "LOGNAME=nobody"}
	for _, kv := range os.Environ() {
		name, val, _ := strings.Cut(kv, "=")
		switch {
		case name == "PATH":
			env = append(env, "PATH="+reachablePath(val))
		case name == "HOME", name == "USER", name == "LOGNAME", name == "TMPDIR", name == testHelperEnv,
			strings.HasPrefix(name, "XDG_"), strings.HasPrefix(name, "GO") && name != "GOTOOLCHAIN",
			strings.HasPrefix(name, "CARGO"), strings.HasPrefix(name, "RUSTUP"), strings.HasPrefix(name, "PYENV"),
			name == "SSH_AUTH_SOCK":
		default:
			env = append(env, kv)
		}
	}
	return env
}

// reachablePath keeps the PATH entries every user can search: each
// directory on the way world-executable.
func reachablePath(path string) string {
	var keep []string
	for _, d := range filepath.SplitList(path) {
		if filepath.IsAbs(d) && worldSearchable(d) {
			keep = append(keep, d)
		}
	}
	return strings.Join(keep, string(filepath.ListSeparator))
}

func worldSearchable(dir string) bool {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return false
		}
		if d == "/" {
			return true
		}
	}
}

// testSummary keeps the result lines of `go test -v` output.
func testSummary(out string) string {
	var b strings.Builder
	s := bufio.NewScanner(strings.NewReader(out))
	s.Buffer(make([]byte, 1<<20), 1<<20)
	for s.Scan() {
		line := strings.TrimSpace(s.Text())
		if strings.HasPrefix(line, "--- ") || strings.HasPrefix(line, "ok") || strings.HasPrefix(line, "FAIL") || line == "PASS" {
			b.WriteString(s.Text() + "\n")
		}
	}
	return b.String()
}
