package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// realDir is a fresh temporary directory, its own links resolved.
func realDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mustWrite(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustRead(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestWriteFollowsNoLinkPlantedAfterTheDecision: the change was decided on
// ws/sub/f.txt; before the write, sub is swapped for a link to a folder
// outside. The write must fail and the outside stay untouched.
func TestWriteFollowsNoLinkPlantedAfterTheDecision(t *testing.T) {
	base := realDir(t)
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	mustWrite(t, filepath.Join(ws, "sub", "f.txt"), "old\n")
	mustWrite(t, filepath.Join(out, "f.txt"), "old\n")
	real := filepath.Join(ws, "sub", "f.txt")
	if err := os.Rename(filepath.Join(ws, "sub"), filepath.Join(ws, "sub.moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(out, filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	cs := &ChangeSet{Changes: []FileChange{{Kind: Update, Path: real, Real: real, OldContent: []byte("old\n"), NewContent: []byte("pwned\n")}}}
	err := WriteToDisk(cs)
	if err == nil || !errors.Is(err, ErrSymlink) {
		t.Fatalf("WriteToDisk = %v, want ErrSymlink", err)
	}
	if got := mustRead(t, filepath.Join(out, "f.txt")); got != "old\n" {
		t.Errorf("outside file = %q", got)
	}
	// A new file below the swapped folder: refused as well.
	cs = &ChangeSet{Changes: []FileChange{{Kind: Add, Path: filepath.Join(ws, "sub", "new", "n.txt"), Real: filepath.Join(ws, "sub", "new", "n.txt"), NewContent: []byte("x")}}}
	if err := WriteToDisk(cs); !errors.Is(err, ErrSymlink) {
		t.Fatalf("add below a planted link = %v, want ErrSymlink", err)
	}
	if _, err := os.Stat(filepath.Join(out, "new")); !os.IsNotExist(err) {
		t.Errorf("a folder was created outside: %v", err)
	}
}

// TestWriteReplacesNoFinalLink: a file swapped for a link after the
// decision is not written through.
func TestWriteReplacesNoFinalLink(t *testing.T) {
	base := realDir(t)
	ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
	mustWrite(t, filepath.Join(ws, "f.txt"), "old\n")
	mustWrite(t, filepath.Join(out, "secret"), "old\n")
	real := filepath.Join(ws, "f.txt")
	os.Remove(real)
	if err := os.Symlink(filepath.Join(out, "secret"), real); err != nil {
		t.Fatal(err)
	}
	for _, k := range []ChangeKind{Update, Delete} {
		fc := FileChange{Kind: k, Path: real, Real: real, OldContent: []byte("old\n")}
		if k == Update {
			fc.NewContent = []byte("pwned\n")
		}
		if err := WriteToDisk(&ChangeSet{Changes: []FileChange{fc}}); !errors.Is(err, ErrSymlink) {
			t.Errorf("%s through a final link = %v, want ErrSymlink", k, err)
		}
	}
	if got := mustRead(t, filepath.Join(out, "secret")); got != "old\n" {
		t.Errorf("outside file = %q", got)
	}
}

// TestWriteThroughLinkInside: with no decided real path, a link to a file
// inside is resolved when planning: its target is rewritten, the link
// stays a link.
func TestWriteThroughLinkInside(t *testing.T) {
	ws := realDir(t)
	mustWrite(t, filepath.Join(ws, "docs", "README.md"), "a\n")
	link := filepath.Join(ws, "README.md")
	if err := os.Symlink("docs/README.md", link); err != nil {
		t.Fatal(err)
	}
	cs := &ChangeSet{Changes: []FileChange{{Kind: Update, Path: link, OldContent: []byte("a\n"), NewContent: []byte("b\n")}}}
	if err := WriteToDisk(cs); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v", err)
	}
	if got := mustRead(t, filepath.Join(ws, "docs", "README.md")); got != "b\n" {
		t.Errorf("target = %q", got)
	}
}
