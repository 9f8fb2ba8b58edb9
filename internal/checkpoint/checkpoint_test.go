package checkpoint

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRevert(t *testing.T) {
	lines := func(s ...string) []byte { return []byte(strings.Join(s, "\n") + "\n") }
	base := lines("a", "b", "c", "d", "e", "f", "g", "h")
	agent := lines("a", "B", "c", "d", "e", "f", "g", "h")
	for _, tc := range []struct {
		name, current, want string
		ok                  bool
	}{
		{"untouched", string(agent), string(base), true},
		{"user edit elsewhere kept", string(lines("a", "B", "c", "d", "e", "f", "G", "h")), string(lines("a", "b", "c", "d", "e", "f", "G", "h")), true},
		{"user edit on the agent's line", string(lines("a", "BB", "c", "d", "e", "f", "g", "h")), "", false},
		{"user edit next to the agent's line", string(lines("a", "B", "C", "d", "e", "f", "g", "h")), "", false},
		{"user reverted it already", string(base), string(base), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := Revert(base, agent, []byte(tc.current))
			if ok != tc.ok || (ok && string(got) != tc.want) {
				t.Errorf("Revert = %q, %v; want %q, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestSnapshotFindsWhatCommandsChanged: sed -i (a new inode), touch (a
// new file), rm, and a write into an ignored folder, which is left out
// of the snapshot and reported as such.
func TestSnapshotFindsWhatCommandsChanged(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".gitignore", "build/\n")
	write("a.txt", "one\n")
	write("b.txt", "two\n")
	write("keep.txt", "same\n")
	write("build/big.bin", strings.Repeat("x", 4096))
	write("node_modules/m/index.js", "x")
	st := Open(filepath.Join(t.TempDir(), "cp"))
	tr := NewTracker(st, []string{dir}, 1024)
	before := tr.Snapshot(context.Background())
	if _, ok := before.Files[filepath.Join(dir, "build/big.bin")]; ok {
		t.Error("an ignored folder's file is in the snapshot")
	}
	if _, ok := before.Files[filepath.Join(dir, "node_modules/m/index.js")]; ok {
		t.Error("node_modules is in the snapshot")
	}
	cmd := exec.Command("sh", "-c", "sed -i s/one/ONE/ a.txt && touch new.txt && rm b.txt && touch build/more")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	after := tr.Snapshot(context.Background())
	changes, skipped := Diff(before, after)
	var got []string
	for _, c := range changes {
		got = append(got, filepath.Base(c.Path))
		if filepath.Base(c.Path) == "a.txt" {
			old, err := st.Get(c.Before.Sum)
			if err != nil || string(old) != "one\n" {
				t.Errorf("a.txt before: %q, %v", old, err)
			}
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, []string{"a.txt", "b.txt", "new.txt"}) {
		t.Errorf("changed files %v", got)
	}
	if !slices.Equal(skipped, []string{filepath.Join(dir, "build")}) {
		t.Errorf("changed left-out folders %v", skipped)
	}
	// Only the changed file's content was copied again.
	if n := st.Size(); n > 64 {
		t.Errorf("the store holds %d bytes for four small files", n)
	}
}

func TestSnapshotLeavesOutLargeFiles(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2048), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := NewTracker(Open(t.TempDir()), []string{dir}, 1024)
	e := tr.Snapshot(context.Background()).Files[filepath.Join(dir, "big")]
	if e.Sum != "" || !strings.Contains(e.Lost, "larger than") {
		t.Errorf("a file over the limit: %+v", e)
	}
}

func TestStorePrune(t *testing.T) {
	st := Open(t.TempDir())
	a, _ := st.Put([]byte("aaaa"))
	b, _ := st.Put([]byte("bb"))
	if st.Size() != 6 {
		t.Fatalf("size %d", st.Size())
	}
	if freed := st.Prune(func(s Sum) bool { return s == b }); freed != 4 || st.Has(a) || !st.Has(b) || st.Size() != 2 {
		t.Errorf("freed %d, has a %v, has b %v, size %d", freed, st.Has(a), st.Has(b), st.Size())
	}
	if got, err := st.Get(b); err != nil || string(got) != "bb" {
		t.Errorf("Get = %q, %v", got, err)
	}
}
