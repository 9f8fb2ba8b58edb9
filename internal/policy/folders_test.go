package policy

import (
	"path/filepath"
	"strings"
	"testing"
)

// twoFolders is a workspace of two folders, each a git repository, with a
// symlink from each into the other: ws1/hooks2 points at ws2's hooks,
// ws2/one at ws1.
func twoFolders(t *testing.T) (base, ws1, ws2 string) {
	t.Helper()
	base = realTemp(t)
	ws1, ws2 = filepath.Join(base, "ws1"), filepath.Join(base, "ws2")
	mustMkdir(t, filepath.Join(ws1, ".git", "hooks"), filepath.Join(ws2, ".git", "hooks"), filepath.Join(ws2, "src"), filepath.Join(base, "other"))
	mustSymlink(t, filepath.Join(ws2, ".git", "hooks"), filepath.Join(ws1, "hooks2"))
	mustSymlink(t, ws1, filepath.Join(ws2, "one"))
	return base, ws1, ws2
}

func TestSecondFolderBoundary(t *testing.T) {
	base, ws1, ws2 := twoFolders(t)
	b, err := NewBoundary(WorkspaceWrite, ws1, []string{ws2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b = b.WithFolders([]string{ws1, ws2, ws2 + "/"})
	if got := b.Folders(); len(got) != 1 || got[0] != ws2 {
		t.Fatalf("Folders() = %v, want [%s] (the root and duplicates left out)", got, ws2)
	}
	if !b.FolderWritable(ws2) {
		t.Errorf("FolderWritable(%s) = false", ws2)
	}
	cases := []struct {
		path     string
		writable bool
		why      string
	}{
		{ws2 + "/src/main.go", true, ""},
		{ws2 + "/new/deeper/file", true, ""},
		{ws1 + "/main.go", true, ""},
		// .git of each folder is protected.
		{ws2 + "/.git/hooks/pre-commit", false, "inside " + ws2 + "/.git, which is protected"},
		{ws2 + "/.git/config", false, "inside " + ws2 + "/.git"},
		{ws1 + "/.git/hooks/pre-commit", false, "inside " + ws1 + "/.git"},
		// A link in the first folder into the second's hooks.
		{ws1 + "/hooks2/pre-commit", false, "a symbolic link to " + ws2 + "/.git/hooks/pre-commit"},
		// A link in the second folder back into the first's .git.
		{ws2 + "/one/.git/config", false, "inside " + ws1 + "/.git"},
		{ws2 + "/one/src/x.go", true, ""},
		// .agent-ls and .agents in the second folder, even before they exist.
		{ws2 + "/.agent-ls/config.toml", false, "inside " + ws2 + "/.agent-ls"},
		{ws2 + "/.agents/skill.md", false, "inside " + ws2 + "/.agents"},
		{base + "/other/x", false, "outside the writable folders"},
	}
	for _, c := range cases {
		got := b.Target(c.path)
		if got.Writable != c.writable || !strings.Contains(got.Why, c.why) {
			t.Errorf("Target(%s) = writable %v, why %q; want %v, %q", c.path, got.Writable, got.Why, c.writable, c.why)
		}
	}
	for path, want := range map[string]bool{ws2 + "/src": true, ws1 + "/hooks2": true, ws2: true, base + "/other": false, base: false} {
		if got := b.Contains(path); got != want {
			t.Errorf("Contains(%s) = %v, want %v", path, got, want)
		}
	}
	var prot []string
	for _, p := range b.Protected() {
		prot = append(prot, p.Path)
	}
	for _, want := range []string{ws1 + "/.git", ws2 + "/.git", ws2 + "/.agent-ls"} {
		if !strings.Contains(strings.Join(prot, "\n"), want) {
			t.Errorf("Protected() = %v, want %s in it", prot, want)
		}
	}
}

// A folder that is not a writable root is inside the workspace but
// cannot be written.
func TestReadOnlySecondFolder(t *testing.T) {
	_, ws1, ws2 := twoFolders(t)
	b, err := NewBoundary(WorkspaceWrite, ws1, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b = b.WithFolders([]string{ws2})
	if b.FolderWritable(ws2) {
		t.Errorf("FolderWritable(%s) = true for a folder that is no writable root", ws2)
	}
	if !b.Contains(ws2 + "/src") {
		t.Errorf("Contains(%s/src) = false", ws2)
	}
	if got := b.Target(ws2 + "/src/main.go"); got.Writable || !strings.Contains(got.Why, "outside the writable folders") {
		t.Errorf("Target in a read-only folder = %+v", got)
	}
	ro, err := NewBoundary(ReadOnly, ws1, []string{ws2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if ro.WithFolders([]string{ws2}).FolderWritable(ws2) {
		t.Errorf("FolderWritable in read-only mode = true")
	}
}

func TestFolderReadOnly(t *testing.T) {
	base := realTemp(t)
	home := filepath.Join(base, "home", "user")
	config := filepath.Join(home, ".config", "agent-ls")
	cache := filepath.Join(base, "cache", "agent-ls")
	project := filepath.Join(base, "src", "project")
	mustMkdir(t, config, cache, project)
	mustSymlink(t, home, filepath.Join(base, "homelink"))
	own := []OwnPath{{Path: config, What: "agent-ls's config folder"}, {Path: cache, What: "agent-ls's cache folder"}}
	cases := []struct{ folder, why string }{
		{project, ""},
		{filepath.Join(home, "code"), ""},
		{"/", "root of the file system"},
		{home, "home folder"},
		{filepath.Join(base, "homelink"), "home folder"},
		{filepath.Join(base, "home"), "home folder"},
		{base, "home folder"},
		{config, "agent-ls's config folder"},
		{filepath.Join(cache, "go"), "agent-ls's cache folder"},
		{"relative", "not an absolute path"},
	}
	for _, c := range cases {
		got := FolderReadOnly(c.folder, home, own)
		if c.why == "" && got != "" || !strings.Contains(got, c.why) {
			t.Errorf("FolderReadOnly(%s) = %q, want %q", c.folder, got, c.why)
		}
	}
}
