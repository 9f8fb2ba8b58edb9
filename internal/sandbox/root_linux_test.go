package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWorkdirChoosesWhereNotWhat: a command started in a subfolder of the
// project may write the whole project, and the project root's protected
// names stay protected whatever the command's cwd, also when the project
// lies inside another writable root (/tmp).
func TestWorkdirChoosesWhereNotWhat(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			root, outside := workspace(t)
			sub := filepath.Join(root, "sub")
			if err := os.Mkdir(sub, 0o755); err != nil {
				t.Fatal(err)
			}
			p := Policy{Mode: WorkspaceWrite, Root: root, Cwd: sub}
			mustWork(t, attack(t, p, "write", filepath.Join(root, "top.txt")), "write the project root from a subfolder")
			mustBlock(t, attack(t, p, "write", filepath.Join(outside, "x")), "write outside from a subfolder")
		})
	}
}

func TestProtectedNamesHoldFromASubfolderInsideTmp(t *testing.T) {
	requireLandlock(t)
	for _, m := range nsModes[:1] { // protected names need the namespace
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			root, err := os.MkdirTemp("/tmp", "agent-ls-root-")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { os.RemoveAll(root) })
			sub := filepath.Join(root, "sub")
			hooks := filepath.Join(root, ".git", "hooks")
			for _, d := range []string{sub, hooks} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			p := Policy{Mode: WorkspaceWrite, Root: root, Cwd: sub}
			hook := filepath.Join(hooks, "pre-commit")
			mustWork(t, unconfined(t, "write", hook+".control"), "the attack works unconfined")
			mustBlock(t, attack(t, p, "write", hook), "write the project's git hook from a subfolder")
			mustBlock(t, attack(t, p, "mkdir", filepath.Join(root, ".agents")), "create .agents from a subfolder")
			mustWork(t, attack(t, p, "write", filepath.Join(root, "ok.txt")), "write the project root")
			if exists(hook) {
				t.Error("ESCAPE: the hook was written")
			}
		})
	}
}
