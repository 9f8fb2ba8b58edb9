package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func run(t *testing.T, dir, script string) {
	t.Helper()
	cmd := exec.Command("sh", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v: %s", script, err, out)
	}
}

// In a git repository the first snapshot copies only what git's index
// does not hold; a command's change of a clean file still finds its
// former content, copied from git's objects when it is recorded.
func TestSnapshotLeavesCleanFilesInGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	for i := range 50 {
		os.WriteFile(filepath.Join(dir, "f"+strings.Repeat("x", i%5)+string(rune('a'+i%26))+".txt"), []byte(strings.Repeat("line\n", i+1)), 0o644)
	}
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	run(t, dir, "git init -q && git add -A && git commit -qm init")
	os.WriteFile(filepath.Join(dir, "dirty.txt"), []byte("not in git\n"), 0o644)
	run(t, dir, "echo staged >> a.txt && git add a.txt && echo worktree >> a.txt")

	st := Open(t.TempDir())
	tr := NewTracker(st, []string{dir}, 0)
	ctx := context.Background()
	before := tr.Snapshot(ctx)
	// Only the two files git's index does not hold were copied.
	if n, want := st.Size(), int64(len("not in git\n")+len("one\nstaged\nworktree\n")); n != want {
		t.Errorf("the store holds %d bytes after the first snapshot, want %d", n, want)
	}
	clean := before.Files[filepath.Join(dir, "fa.txt")]
	if clean.Git == "" || clean.Sum != "" {
		t.Fatalf("a clean file's entry: %+v", clean)
	}
	// The command changes a clean file, the staged one, and runs git
	// commands that drop the old blob from the index.
	run(t, dir, "sed -i s/line/LINE/ fa.txt && echo more >> a.txt && git add -A && git commit -qm two")
	changes, _ := Diff(before, tr.Snapshot(ctx))
	tr.Keep(ctx, changes)
	got := map[string]Change{}
	for _, c := range changes {
		got[filepath.Base(c.Path)] = c
	}
	if len(got) != 2 {
		t.Fatalf("changes %v", got)
	}
	for name, want := range map[string]string{"fa.txt": "line\n", "a.txt": "one\nstaged\nworktree\n"} {
		c := got[name]
		old, err := st.Get(c.Before.Sum)
		if err != nil || string(old) != want {
			t.Errorf("%s before: %q, %v (entry %+v)", name, old, err, c.Before)
		}
		if _, err := st.Get(c.After.Sum); err != nil {
			t.Errorf("%s after: %v (entry %+v)", name, err, c.After)
		}
	}
}

// A blob git no longer has is reported lost, not read from elsewhere.
func TestKeepReportsAGoneBlob(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	run(t, dir, "git init -q && git add a.txt")
	tr := NewTracker(Open(t.TempDir()), []string{dir}, 0)
	ctx := context.Background()
	before := tr.Snapshot(ctx)
	run(t, dir, "echo two > a.txt && git add a.txt && git prune --expire=now && rm -f .git/objects/*/*; git add a.txt")
	changes, _ := Diff(before, tr.Snapshot(ctx))
	tr.Keep(ctx, changes)
	if len(changes) != 1 || changes[0].Before.Sum != "" || !strings.Contains(changes[0].Before.Lost, "gone") {
		t.Errorf("changes %+v", changes)
	}
}

// A root inside another, or reached through a link into another, is
// walked once, under the other's paths.
func TestDistinctRoots(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	os.Mkdir(filepath.Join(a, "sub"), 0o755)
	link := filepath.Join(b, "to-a")
	if err := os.Symlink(a, link); err != nil {
		t.Fatal(err)
	}
	got := distinctRoots([]string{a, filepath.Join(a, "sub"), link, b, a})
	if len(got) != 2 || got[0] != a || got[1] != b {
		t.Errorf("distinctRoots = %q, want [%s %s]", got, a, b)
	}
}
