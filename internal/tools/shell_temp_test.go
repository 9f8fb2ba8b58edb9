package tools

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// TestShellTempExclusionsAndCacheRoot: the session's exec settings reach
// the sandbox of every command: with ExcludeSlashTmp a sandboxed write to
// /tmp fails and leaves nothing, without it the same write works, and a
// configured CacheRoot is where the command's GOCACHE points.
func TestShellTempExclusionsAndCacheRoot(t *testing.T) {
	if sandbox.LandlockABI() == 0 {
		t.Skip("!!!!!! SKIPPED: no Landlock here: the sandbox cannot run !!!!!!")
	}
	ws, err := os.MkdirTemp("/var/tmp", "agent-ls-shell-ws-")
	if err != nil {
		t.Skipf("no folder outside /tmp: %v", err)
	}
	t.Cleanup(func() { os.RemoveAll(ws) })
	tmp, err := os.MkdirTemp("/tmp", "agent-ls-shell-tmp-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	envFor := func(exclude bool, cacheRoot string) *Env {
		b, err := policy.NewBoundary(policy.WorkspaceWrite, ws, nil, policy.WritableTempRoots("", false, exclude))
		if err != nil {
			t.Fatal(err)
		}
		return &Env{Cwd: ws, Boundary: b, Approver: &fakeApprover{allow: true, sandbox: true},
			Exec: ExecConfig{HelperPath: exe, ExcludeSlashTmp: exclude, CacheRoot: cacheRoot}}
	}
	t.Setenv("TMPDIR", "") // /tmp alone is the temporary directory here
	run := func(env *Env, argv ...string) Output {
		t.Helper()
		out, err := runShell(t, context.Background(), env, map[string]any{"command": argv})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	// Denied by Landlock (EACCES), or, inside a mount namespace, first by
	// the read-only mount everything outside the writable roots is (EROFS).
	f := filepath.Join(tmp, "f")
	if out := run(envFor(true, ""), "sh", "-c", "echo x > "+f); !out.Failed || !strings.Contains(out.Text, "Permission denied") && !strings.Contains(out.Text, "Read-only file system") {
		t.Errorf("writing /tmp with /tmp excluded: %+v", out)
	}
	if _, err := os.Stat(f); err == nil {
		t.Fatal("ESCAPE: the file in /tmp exists")
	}
	if out := run(envFor(false, ""), "sh", "-c", "echo x > "+f); out.Failed {
		t.Errorf("writing /tmp (control): %s", out.Text)
	}
	if got, err := os.ReadFile(f); err != nil || string(got) != "x\n" {
		t.Errorf("control: %q %v", got, err)
	}

	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	cache := filepath.Join(ws+"-cache", "c")
	t.Cleanup(func() { os.RemoveAll(ws + "-cache") })
	out := run(envFor(true, cache), "sh", "-c", `go env GOCACHE && mkdir -p "$GOCACHE" && echo x > "$GOCACHE/probe"`)
	if out.Failed || !strings.Contains(out.Text, filepath.Join(cache, "go-build")) {
		t.Errorf("GOCACHE under the configured cache root: %s", out.Text)
	}
	if _, err := os.Stat(filepath.Join(cache, "go-build", "probe")); err != nil {
		t.Errorf("the write below GOCACHE did not land: %v", err)
	}
	if out := run(envFor(false, filepath.Join(ws, ".git", "c")), "true"); !out.Failed || !strings.Contains(out.Text, "cache_root") {
		t.Errorf("a cache root inside the project's .git: %+v", out)
	}
}
