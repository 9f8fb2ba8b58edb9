package tools

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// TestShellWorkdirKeepsTheSessionBoundary: a command run from a subfolder
// (workdir) of a workspace inside /tmp may write the project root, and the
// project root's .git stays read-only: the workdir chooses where the
// command runs, never what is writable.
func TestShellWorkdirKeepsTheSessionBoundary(t *testing.T) {
	if c := sandbox.Probe(); c.LandlockABI == 0 || !c.Namespaces {
		t.Skip("SKIPPING: needs Landlock and user namespaces to protect .git")
	}
	root, err := os.MkdirTemp("/tmp", "agent-ls-shell-root-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	for _, d := range []string{"sub", ".git/hooks"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Cwd: root, Boundary: testBoundary(t, policy.WorkspaceWrite, root),
		Approver: &fakeApprover{allow: true, sandbox: true}, Exec: ExecConfig{HelperPath: exe}}
	run := func(script string) Output {
		t.Helper()
		out, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"sh", "-c", script}, "workdir": "sub"})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := run("echo ok > ../top.txt"); out.Failed {
		t.Errorf("writing the project root from sub failed: %s", out.Text)
	}
	if out := run("echo pwned > ../.git/hooks/pre-commit"); !out.Failed {
		t.Errorf("the project's git hook was writable from sub: %s", out.Text)
	}
	if _, err := os.Stat(filepath.Join(root, ".git", "hooks", "pre-commit")); err == nil {
		t.Error("ESCAPE: the hook exists")
	}
	if _, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"true"}, "workdir": "/"}); err == nil {
		t.Error("a workdir outside the workspace was accepted")
	}
}
