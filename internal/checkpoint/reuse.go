package checkpoint

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
)

// walk is what one snapshot's walk shares between its goroutines.
type walk struct {
	// skip are the directories never walked: agent-ls's state and the
	// tracker's store, by identity (device and inode), links resolved.
	skip []os.FileInfo
	// prior is the latest snapshot an earlier tracker of the same
	// folders kept, and its store: only for a tracker's first snapshot.
	prior      map[string]Entry
	priorStore *Store
	// budget bounds the bytes the first snapshot leaves in the store
	// (0: none); used counts them.
	budget  int64
	used    atomic.Int64
	changed atomic.Bool // an entry differs from the last snapshot's
}

// newWalk prepares a snapshot's walk (t.mu held).
func (t *Tracker) newWalk() *walk {
	w := &walk{}
	for _, d := range append([]string{t.opts.StateDir, t.store.Dir()}, t.opts.Exclude...) {
		if d == "" {
			continue
		}
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			w.skip = append(w.skip, fi)
		}
	}
	if t.last != nil {
		return w
	}
	if t.opts.MaxBytes > 0 {
		w.budget = t.opts.MaxBytes
		w.used.Store(t.store.Size())
	}
	if t.opts.StateDir != "" {
		w.priorStore, w.prior = loadPrior(t.opts.StateDir, realRoots(t.roots))
	}
	return w
}

// excluded reports whether the directory abs is one never walked: the
// state directory, the tracker's store, or any checkpoint store.
func (w *walk) excluded(abs string) bool {
	if len(w.skip) > 0 {
		if fi, err := os.Lstat(abs); err == nil {
			for _, s := range w.skip {
				if os.SameFile(fi, s) {
					return true
				}
			}
		}
	}
	return isStore(abs)
}

// reuse returns the entry of the prior snapshot for abs when the file's
// metadata e still matches it: its content is then linked from the
// prior store (or left to git's objects) instead of being read. It
// fails, and the file is read, when the prior store's object is gone or
// cannot be linked, or git's index no longer names the blob.
func (w *walk) reuse(ctx context.Context, store *Store, repo *gitRepo, abs string, e Entry) (Entry, bool) {
	old, ok := w.prior[abs]
	if !ok || !old.sameMeta(e) {
		return Entry{}, false
	}
	switch {
	case old.Git != "":
		if repo == nil || !repo.has(ctx, old.Git) {
			return Entry{}, false
		}
		old.Sum, old.Lost, old.repo = "", "", repo
		return old, true
	case old.Sum != "":
		if !w.reserve(old.Size) {
			return Entry{}, false // read, and marked over the budget there
		}
		if err := store.link(w.priorStore, old.Sum, old.Size); err != nil {
			w.unreserve(true, old.Size)
			return Entry{}, false
		}
		old.Lost = ""
		return old, true
	}
	return Entry{}, false
}

// reserve counts n more bytes in the store, and reports whether they
// stay within the first snapshot's budget.
func (w *walk) reserve(n int64) bool {
	if w.budget <= 0 {
		return true
	}
	if w.used.Add(n) > w.budget {
		w.used.Add(-n)
		return false
	}
	return true
}

// unreserve takes back n bytes reserve counted, when reserved.
func (w *walk) unreserve(reserved bool, n int64) {
	if reserved && w.budget > 0 {
		w.used.Add(-n)
	}
}

// overBudget is the Lost of a file the budget left out.
func (w *walk) overBudget() string {
	return "not kept: the session's checkpoints reached checkpoint_max_bytes (" + formatBytes(w.budget) + ")"
}

// saveEvery: the latest snapshot is written beside the store at most
// this often while commands run (and when the tracker closes), so a
// turn does not wait for a write of the whole index.
const saveEvery = 30 * time.Second

// keepLatest notes files, the latest snapshot, for a save, and starts
// one unless one started less than saveEvery ago (t.mu held).
func (t *Tracker) keepLatest(files map[string]Entry) {
	t.dirty = false
	t.closeMu.Lock()
	defer t.closeMu.Unlock()
	if t.closed {
		return
	}
	t.pending.Store(&files)
	if t.saved.IsZero() || time.Since(t.saved) >= saveEvery {
		t.saved = time.Now()
		go t.flush()
	}
}

// flush keeps the latest snapshot waiting on disk, one save at a time.
func (t *Tracker) flush() {
	t.saveMu.Lock()
	defer t.saveMu.Unlock()
	files := t.pending.Swap(nil)
	if files == nil {
		return
	}
	if err := saveIndex(t.store, t.opts.StateDir, realRoots(t.roots), *files); err != nil {
		slog.Debug("the snapshot is not kept for a later session", "store", filepath.Base(t.store.Dir()), "err", err)
	}
}

// Close keeps the latest snapshot on disk (with TrackerOptions.StateDir),
// where a later tracker of the same folders finds it, and no later one:
// once it returns, the tracker writes nothing beside its store.
func (t *Tracker) Close() {
	t.closeMu.Lock()
	t.closed = true
	t.closeMu.Unlock()
	t.flush()
}
