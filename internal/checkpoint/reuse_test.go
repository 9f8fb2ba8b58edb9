package checkpoint

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// writeFiles writes n files of about 1 KB into dir.
func writeFiles(t *testing.T, dir string, n int) {
	t.Helper()
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%d", i%4), fmt.Sprintf("f%d.txt", i))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("%d\n%s", i, strings.Repeat("x", 1000))), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// objects lists the store's content files.
func objects(s *Store) map[Sum]string {
	out := map[Sum]string{}
	s.each(func(sum Sum, p string, _ int64) { out[sum] = p })
	return out
}

// TestSnapshotLeavesOutStateAndStores: the state folder lies in the
// workspace, reached by the tracker through a link; neither its records
// nor any session's store is snapshotted, so a second session's store
// holds the workspace's contents and nothing of the first's store.
func TestSnapshotLeavesOutStateAndStores(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, 8)
	sessions := filepath.Join(ws, ".state", "agent-ls", "sessions")
	if err := os.MkdirAll(sessions, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(sessions, "a.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	alias := filepath.Join(t.TempDir(), "state")
	if err := os.Symlink(sessions, alias); err != nil {
		t.Skip("no symbolic links:", err)
	}
	// A store elsewhere in the workspace, not under the state folder.
	other := Open(filepath.Join(ws, "elsewhere", "x.checkpoints"))
	if _, err := other.Put([]byte("another store's content")); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var stores []*Store
	for _, id := range []string{"a", "b"} {
		st := Open(filepath.Join(alias, id+".checkpoints"))
		tr := NewTrackerWith(st, []string{ws}, TrackerOptions{StateDir: alias})
		snap := tr.Snapshot(ctx)
		tr.Snapshot(ctx) // the first one's store exists now: still left out
		snap = tr.Snapshot(ctx)
		tr.Close()
		for p := range snap.Files {
			if strings.HasPrefix(p, filepath.Join(ws, ".state")) || strings.HasPrefix(p, filepath.Join(ws, "elsewhere")) {
				t.Errorf("session %s: %s is in the snapshot", id, p)
			}
		}
		if len(snap.Files) != 8 {
			t.Errorf("session %s: %d files in the snapshot, want 8", id, len(snap.Files))
		}
		stores = append(stores, st)
	}
	first, second := objects(stores[0]), objects(stores[1])
	if len(second) != 8 {
		t.Errorf("the second store holds %d contents, want the workspace's 8", len(second))
	}
	for sum := range second {
		if _, ok := first[sum]; !ok {
			t.Errorf("the second store holds %.12s, not a content of the workspace", sum)
		}
	}
}

// TestSecondTrackerLinksTheFirstsContents: a second tracker of the same
// folders hard-links the contents the first kept of the files that did
// not change, reads the one that did, and its store stays whole when the
// first's is removed.
func TestSecondTrackerLinksTheFirstsContents(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	writeFiles(t, ws, 6)
	ctx := context.Background()
	a := Open(filepath.Join(state, "a.checkpoints"))
	ta := NewTrackerWith(a, []string{ws}, TrackerOptions{StateDir: state})
	snapA := ta.Snapshot(ctx)
	ta.Close()
	changed := filepath.Join(ws, "d1", "f1.txt")
	if err := os.WriteFile(changed, []byte("changed since\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	b := Open(filepath.Join(state, "b.checkpoints"))
	tb := NewTrackerWith(b, []string{ws}, TrackerOptions{StateDir: state})
	snapB := tb.Snapshot(ctx)
	tb.Close()
	linked := 0
	for p, e := range snapB.Files {
		fb, err := os.Stat(b.path(e.Sum))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if fa, err := os.Stat(a.path(e.Sum)); err == nil && os.SameFile(fa, fb) {
			linked++
			if e.Sum != snapA.Files[p].Sum {
				t.Errorf("%s: linked %.12s, the first kept %.12s", p, e.Sum, snapA.Files[p].Sum)
			}
		} else if p != changed {
			t.Errorf("%s: copied again, not linked", p)
		}
	}
	if linked != 5 {
		t.Errorf("%d contents linked, want 5", linked)
	}
	if _, err := a.Get(snapB.Files[changed].Sum); err == nil {
		t.Error("the changed file's content was taken from the first store")
	}
	if err := a.Remove(); err != nil {
		t.Fatal(err)
	}
	for p, e := range snapB.Files {
		if data, err := b.Get(e.Sum); err != nil || !strings.HasPrefix(string(data), "") {
			t.Errorf("%s after the first store went: %v", p, err)
		}
	}
}

// TestForeignIndexIsNotTrusted: an index cut short, or one naming other
// folders, is ignored: every file is read and copied.
func TestForeignIndexIsNotTrusted(t *testing.T) {
	for _, spoil := range []func(p string) error{
		func(p string) error { // cut short
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, data[:len(data)/2], 0o600)
		},
		func(p string) error { // another version
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			return os.WriteFile(p, []byte(strings.Replace(string(data), `"version":1`, `"version":99`, 1)), 0o600)
		},
	} {
		ws, state := t.TempDir(), t.TempDir()
		writeFiles(t, ws, 4)
		ctx := context.Background()
		a := Open(filepath.Join(state, "a.checkpoints"))
		ta := NewTrackerWith(a, []string{ws}, TrackerOptions{StateDir: state})
		ta.Snapshot(ctx)
		ta.Close()
		if err := spoil(filepath.Join(a.Dir(), indexFile)); err != nil {
			t.Fatal(err)
		}
		b := Open(filepath.Join(state, "b.checkpoints"))
		tb := NewTrackerWith(b, []string{ws}, TrackerOptions{StateDir: state})
		defer tb.Close() // no save left running when the test ends
		for p, e := range tb.Snapshot(ctx).Files {
			fa, _ := os.Stat(a.path(e.Sum))
			fb, err := os.Stat(b.path(e.Sum))
			if err != nil || (fa != nil && os.SameFile(fa, fb)) {
				t.Errorf("%s: linked from a spoilt index (%v)", p, err)
			}
		}
	}
}

// TestFirstSnapshotKeepsWithinBudget: past MaxBytes, the first snapshot
// copies no more and says why.
func TestFirstSnapshotKeepsWithinBudget(t *testing.T) {
	ws := t.TempDir()
	writeFiles(t, ws, 20)
	st := Open(filepath.Join(t.TempDir(), "cp"))
	tr := NewTrackerWith(st, []string{ws}, TrackerOptions{MaxBytes: 5000})
	lost := 0
	for p, e := range tr.Snapshot(context.Background()).Files {
		switch {
		case e.Sum != "":
		case strings.Contains(e.Lost, "checkpoint_max_bytes"):
			lost++
		default:
			t.Errorf("%s: neither kept nor lost to the budget: %q", p, e.Lost)
		}
	}
	if n := st.Size(); n > 5000 || n == 0 {
		t.Errorf("the store holds %d bytes, budget 5000", n)
	}
	if lost < 15 {
		t.Errorf("%d files lost to the budget, want at least 15", lost)
	}
}

// TestSecondTrackerKeepsGitsBlobs: in a git checkout a second tracker
// takes the first's blob ids without reading the files, and a command's
// change of a clean file still finds its former content in git.
func TestSecondTrackerKeepsGitsBlobs(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	ws, state := t.TempDir(), t.TempDir()
	writeFiles(t, ws, 6)
	run(t, ws, "git init -q && git add -A && git commit -qm init")
	ctx := context.Background()
	ta := NewTrackerWith(Open(filepath.Join(state, "a.checkpoints")), []string{ws}, TrackerOptions{StateDir: state})
	p := filepath.Join(ws, "d0", "f0.txt")
	old := ta.Snapshot(ctx).Files[p]
	ta.Close()
	b := Open(filepath.Join(state, "b.checkpoints"))
	tb := NewTrackerWith(b, []string{ws}, TrackerOptions{StateDir: state})
	defer tb.Close() // no save left running when the test ends
	// Rewritten in place with its size and time: only a tracker that
	// takes the first's entry without reading the file names old's blob.
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("Z"))
	f.Close()
	if err := os.Chtimes(p, old.MTime, old.MTime); err != nil {
		t.Fatal(err)
	}
	before := tb.Snapshot(ctx)
	if e := before.Files[p]; e.Git != old.Git || e.Lost != "" {
		t.Fatalf("%s: %+v, want the first tracker's blob %s", p, e, old.Git)
	}
	run(t, ws, "echo more >> d0/f0.txt")
	changes, _ := Diff(before, tb.Snapshot(ctx))
	tb.Keep(ctx, changes)
	if len(changes) != 1 || changes[0].Before.Sum == "" {
		t.Fatalf("changes %+v", changes)
	}
	if data, err := b.Get(changes[0].Before.Sum); err != nil || !strings.HasPrefix(string(data), "0\nxxx") {
		t.Errorf("former content %q, %v", data, err)
	}
}

// TestResumedTrackerTakesItsOwnSnapshot: a tracker of a store that kept
// the latest snapshot of its folders (a resumed session) takes it back
// without reading the files again.
func TestResumedTrackerTakesItsOwnSnapshot(t *testing.T) {
	ws, state := t.TempDir(), t.TempDir()
	writeFiles(t, ws, 3)
	ctx := context.Background()
	st := Open(filepath.Join(state, "a.checkpoints"))
	ta := NewTrackerWith(st, []string{ws}, TrackerOptions{StateDir: state})
	p := filepath.Join(ws, "d0", "f0.txt")
	old := ta.Snapshot(ctx).Files[p]
	ta.Close()
	// Rewritten in place with its size and time: only a tracker that
	// takes the kept entry without reading the file names old's content.
	f, err := os.OpenFile(p, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte("Z"))
	f.Close()
	if err := os.Chtimes(p, old.MTime, old.MTime); err != nil {
		t.Fatal(err)
	}
	tb := NewTrackerWith(Open(st.Dir()), []string{ws}, TrackerOptions{StateDir: state})
	defer tb.Close() // no save left running when the test ends
	if e := tb.Snapshot(ctx).Files[p]; e.Sum != old.Sum {
		t.Errorf("%s: %+v, want the kept content %.12s", p, e, old.Sum)
	}
}
