package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// requireLandlock skips, loudly, where the kernel cannot sandbox at all.
func requireLandlock(t testing.TB) {
	t.Helper()
	if LandlockABI() < 1 {
		t.Skip("!!!!!! SKIPPED: this kernel has NO LANDLOCK, so the sandbox cannot run here and its escape tests prove nothing !!!!!!")
	}
	if ok, note := seccompAvailable(); !ok {
		t.Skip("!!!!!! SKIPPED: seccomp filters are unavailable here (" + note + "); the sandbox refuses to run !!!!!!")
	}
}

// nsModes are the two ways protected paths can be handled.
var nsModes = []struct {
	name  string
	noNS  bool
	setup func(t *testing.T)
}{
	{"namespace", false, func(t *testing.T) {
		if c := Probe(); !c.Namespaces {
			t.Skip("!!!!!! SKIPPED: user namespaces unavailable (" + c.NamespaceNote + "): protected paths cannot be tested here !!!!!!")
		}
	}},
	{"landlock-only", true, func(t *testing.T) { t.Setenv(NoNamespaceEnv, "1") }},
}

// selfPath is the test binary, which serves as helper and attacker.
func selfPath(t testing.TB) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// testEnv is this process's environment without TMPDIR (which would add a
// writable root), plus the switch that turns the test binary into the
// helper.
func testEnv(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			env = append(env, kv)
		}
	}
	return append(append(env, testHelperEnv+"=1"), extra...)
}

type result struct {
	stdout, stderr string
	code           int
}

func (r result) String() string {
	return fmt.Sprintf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
}

// runIn runs argv under p through the real runner and helper.
func runIn(t testing.TB, p Policy, env []string, argv ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if env == nil {
		env = testEnv()
	}
	cmd, err := Command(ctx, p, argv, env, selfPath(t))
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
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			r.code = 128 + int(ws.Signal())
		}
	case err != nil:
		t.Fatalf("running %v: %v", argv, err)
	}
	return r
}

// attack runs one attack of the test binary under p.
func attack(t *testing.T, p Policy, args ...string) result {
	t.Helper()
	return runIn(t, p, nil, append([]string{selfPath(t), "attack"}, args...)...)
}

// unconfined runs an attack without any sandbox, to prove the attack itself
// works and a blocked result means something.
func unconfined(t *testing.T, args ...string) result {
	t.Helper()
	cmd := exec.Command(selfPath(t), append([]string{"attack"}, args...)...)
	cmd.Env = testEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return r
}

func mustBlock(t *testing.T, r result, why string) {
	t.Helper()
	t.Logf("%s: %s", why, strings.TrimSpace(r.stdout+r.stderr))
	if r.code == 0 {
		t.Errorf("ESCAPE: %s succeeded inside the sandbox\n%v", why, r)
		return
	}
	if r.code != exitBlocked {
		t.Errorf("%s: attack did not run as expected\n%v", why, r)
	}
}

func mustWork(t *testing.T, r result, why string) {
	t.Helper()
	if r.code != 0 {
		t.Errorf("%s failed inside the sandbox\n%v", why, r)
	}
}

// workspace makes a writable root and, beside it, a directory outside every
// writable root (not under /tmp, which is writable in workspace-write mode).
func workspace(t testing.TB) (cwd, outside string) {
	t.Helper()
	base, err := os.MkdirTemp(outsideBase(t), "sbx")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(base) })
	cwd, outside = filepath.Join(base, "ws"), filepath.Join(base, "outside")
	for _, d := range []string{cwd, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return cwd, outside
}

// outsideBase is where test trees go: not below /tmp or $TMPDIR, which are
// writable roots themselves.
func outsideBase(t testing.TB) string {
	t.Helper()
	for _, d := range []string{"/var/tmp", cacheDir()} {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() && !underRoots(d, "/tmp", os.TempDir()) {
			return d
		}
	}
	t.Skip("no scratch directory outside /tmp and $TMPDIR")
	return ""
}

func cacheDir() string {
	d, _ := os.UserCacheDir()
	return d
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// underRoots reports whether dir lies inside one of roots, symlinks
// resolved on both sides.
func underRoots(dir string, roots ...string) bool {
	real, err := policy.Resolve(dir)
	if err != nil {
		return false
	}
	for _, r := range roots {
		if rr, err := policy.Resolve(r); err == nil && policy.Under(real, []string{rr}) {
			return true
		}
	}
	return false
}
