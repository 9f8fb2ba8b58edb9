package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestSecondWorkspaceFolder: a session of two workspace folders, each a
// git repository, with symlinks between them. The second folder is a
// writable root of its own whose .git stays read-only, from whichever
// folder the command runs; a third folder that was found read-only (the
// session's boundary has it, its writable roots do not) cannot be
// written.
func TestSecondWorkspaceFolder(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	ws1, outside := workspace(t)
	base := filepath.Dir(ws1)
	ws2, ws3 := filepath.Join(base, "ws2"), filepath.Join(base, "ws3")
	for _, d := range []string{ws2, ws3} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	git(t, ws1, "init", "-q")
	git(t, ws2, "init", "-q")
	if err := os.Symlink(filepath.Join(ws2, ".git", "hooks"), filepath.Join(ws1, "hooks2")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(ws1, filepath.Join(ws2, "one")); err != nil {
		t.Fatal(err)
	}
	b, err := policy.NewBoundary(WorkspaceWrite, ws1, []string{ws2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b = b.WithFolders([]string{ws2, ws3})
	for _, cwd := range []string{ws1, ws2} {
		t.Run(filepath.Base(cwd), func(t *testing.T) {
			p := PolicyFor(b, cwd, false)
			mustBlock(t, attack(t, p, "write", filepath.Join(ws2, ".git", "hooks", "pre-commit")), "a hook of the second folder")
			mustBlock(t, attack(t, p, "write", filepath.Join(ws2, ".git", "config")), "the second folder's .git/config")
			mustBlock(t, attack(t, p, "write", filepath.Join(ws1, ".git", "hooks", "pre-commit")), "a hook of the first folder")
			mustBlock(t, attack(t, p, "write", filepath.Join(ws1, "hooks2", "pre-commit")), "the second folder's hooks through a link in the first")
			mustBlock(t, attack(t, p, "write", filepath.Join(ws2, "one", ".git", "config")), "the first folder's .git through a link in the second")
			mustBlock(t, attack(t, p, "symlink-write", filepath.Join(ws1, "to-hooks-"+filepath.Base(cwd)), filepath.Join(ws2, ".git", "hooks", "post-checkout")), "a new link from the first folder into the second's hooks")
			mustBlock(t, attack(t, p, "rename", filepath.Join(ws2, ".git"), filepath.Join(ws2, "git-old")), "moving the second folder's .git away")
			mustBlock(t, attack(t, p, "write", filepath.Join(ws2, ".agent-ls", "config.toml")), "the second folder's missing .agent-ls")
			mustBlock(t, attack(t, p, "write", filepath.Join(ws3, "file")), "a read-only folder")
			mustBlock(t, attack(t, p, "write", filepath.Join(outside, "file")), "outside every folder")
			mustWork(t, attack(t, p, "write", filepath.Join(ws2, "file-"+filepath.Base(cwd))), "writing in the second folder")
			mustWork(t, attack(t, p, "write", filepath.Join(ws2, "one", "file-"+filepath.Base(cwd))), "writing in the first folder through a link in the second")
			mustWork(t, attack(t, p, "write", filepath.Join(ws1, "file-"+filepath.Base(cwd))), "writing in the first folder")
		})
	}
	for _, f := range []string{filepath.Join(ws2, ".git", "hooks", "pre-commit"), filepath.Join(ws2, ".git", "hooks", "post-checkout"), filepath.Join(ws3, "file")} {
		if exists(f) {
			t.Errorf("ESCAPE: %s was written", f)
		}
	}
}
