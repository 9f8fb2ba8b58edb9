package checkpoint

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-ls/agent-ls/internal/search"
)

// DefaultMaxFileBytes is the size above which a file's content is not
// kept: a rewind cannot take back a command's change of it.
const DefaultMaxFileBytes = 10 << 20

// skippedDirs are left out of every snapshot whether or not an ignore
// file names them: installed dependencies, rebuilt at will and too large
// to copy.
var skippedDirs = map[string]bool{"node_modules": true, ".git": true}

// Entry is one file in a snapshot: its metadata, and the name of its
// content in the store ("" when it was not kept: Lost says why, or Git
// names it).
type Entry struct {
	Size  int64
	MTime time.Time
	Mode  fs.FileMode
	Ino   uint64
	Sum   Sum
	Lost  string
	// Git is the id of the blob of the root's git index that holds the
	// content, which is then not copied into the store: Tracker.Keep
	// copies it when a command changed the file.
	Git  string
	repo *gitRepo
}

func (e Entry) sameMeta(o Entry) bool {
	return e.Size == o.Size && e.MTime.Equal(o.MTime) && e.Mode == o.Mode && e.Ino == o.Ino
}

// Snapshot is the files of the roots at one moment, and the directories
// left out of it with their modification times (a change of one says
// something inside changed that no checkpoint kept).
type Snapshot struct {
	Files   map[string]Entry
	Skipped map[string]time.Time
}

// Tracker snapshots a session's workspace folders. It remembers the
// last snapshot, so a file whose metadata did not change is neither read
// nor copied again: after the first snapshot, one costs a walk and a
// stat per file. Safe for concurrent use (snapshots run one at a time).
type Tracker struct {
	roots   []string
	store   *Store
	maxFile int64
	opts    TrackerOptions

	mu    sync.Mutex
	last  map[string]Entry
	repos map[string]*gitRepo // by root; nil: not in a git repository
	dirty bool                // last differs from the index kept on disk

	// The latest snapshot waiting to be kept on disk; saveMu: one
	// save at a time; closed: none is kept any more.
	saveMu  sync.Mutex
	pending atomic.Pointer[map[string]Entry]
	closeMu sync.Mutex
	closed  bool
	saved   time.Time // when a save last started (t.mu)
}

// TrackerOptions are a tracker's limits and where it keeps what a later
// session reuses.
type TrackerOptions struct {
	// MaxFile: no content over that many bytes is kept
	// (DefaultMaxFileBytes when 0).
	MaxFile int64
	// MaxBytes, when set, bounds what the first snapshot copies: once
	// the store would hold more, further files are not kept (Lost says
	// so).
	MaxBytes int64
	// StateDir, when set, is agent-ls's state directory: never walked,
	// and where a snapshot names its store as the latest of its folders,
	// so a later tracker of the same folders links the contents it kept
	// instead of reading them again.
	StateDir string
	// Exclude are further directories never walked (the store's own
	// lies in none of the snapshots whatever this says).
	Exclude []string
}

// NewTracker snapshots roots (absolute directories) into store, keeping
// no content over maxFile bytes (DefaultMaxFileBytes when 0).
func NewTracker(store *Store, roots []string, maxFile int64) *Tracker {
	return NewTrackerWith(store, roots, TrackerOptions{MaxFile: maxFile})
}

// NewTrackerWith snapshots roots (absolute directories) into store with
// opts.
func NewTrackerWith(store *Store, roots []string, opts TrackerOptions) *Tracker {
	if opts.MaxFile <= 0 {
		opts.MaxFile = DefaultMaxFileBytes
	}
	return &Tracker{roots: distinctRoots(roots), store: store, maxFile: opts.MaxFile, opts: opts}
}

// distinctRoots leaves out every root that is, links resolved, another
// one or lies inside another: a workspace folder reached through a link
// into another folder is walked once, so no file is recorded under two
// paths (and taken back twice).
func distinctRoots(roots []string) []string {
	real := make([]string, len(roots))
	for i, r := range roots {
		real[i] = filepath.Clean(r)
		if p, err := filepath.EvalSymlinks(r); err == nil {
			real[i] = p
		}
	}
	var out []string
	for i, r := range roots {
		inside := false
		for j := range roots {
			rel, err := filepath.Rel(real[j], real[i])
			within := err == nil && (rel == "." || (rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))))
			if j != i && within && (rel != "." || j < i) {
				inside = true
			}
		}
		if !inside {
			out = append(out, r)
		}
	}
	return out
}

// Warm takes the first snapshot, which copies every kept file, unless
// one was taken: a turn starts it in the background while the model
// thinks, so its first command does not wait for the copy.
func (t *Tracker) Warm(ctx context.Context) {
	t.mu.Lock()
	warm := t.last != nil
	t.mu.Unlock()
	if !warm {
		t.Snapshot(ctx)
	}
}

// Snapshot walks the roots and keeps in the store the content of every
// file that changed since the last snapshot.
func (t *Tracker) Snapshot(ctx context.Context) Snapshot {
	t.mu.Lock()
	defer t.mu.Unlock()
	snap := Snapshot{Files: make(map[string]Entry, len(t.last)), Skipped: map[string]time.Time{}}
	var mu sync.Mutex
	skipped := func(abs string) {
		fi, err := os.Lstat(abs)
		if err != nil {
			return
		}
		mu.Lock()
		snap.Skipped[abs] = fi.ModTime()
		mu.Unlock()
	}
	repos := t.openRepos(ctx)
	w := t.newWalk()
	for _, root := range t.roots {
		repo := repos[root]
		fw := search.FileWalk{Root: root, IgnoredDir: skipped, SkipDir: func(abs string) bool {
			if skippedDirs[filepath.Base(abs)] {
				skipped(abs)
				return true
			}
			return w.excluded(abs)
		}}
		search.WalkFiles(ctx, fw, func(abs string) {
			e, ok := t.entry(ctx, w, repo, abs)
			if !ok {
				return
			}
			mu.Lock()
			snap.Files[abs] = e
			mu.Unlock()
		})
	}
	if w.changed.Load() || len(snap.Files) != len(t.last) {
		t.dirty = true
	}
	t.last = snap.Files
	if t.dirty && t.opts.StateDir != "" && ctx.Err() == nil {
		t.keepLatest(snap.Files)
	}
	return snap
}

// openRepos returns the git repository of each root (t.mu held).
func (t *Tracker) openRepos(ctx context.Context) map[string]*gitRepo {
	if t.repos != nil {
		return t.repos
	}
	repos := map[string]*gitRepo{}
	for _, root := range t.roots {
		repos[root] = openGit(ctx, root)
	}
	if ctx.Err() == nil {
		t.repos = repos // a cancelled look is not remembered
	}
	return repos
}

// entry stats abs and, when it changed since the last snapshot, keeps
// its content, or notes the blob of repo's index that holds it. Called
// from the walk's goroutines, with t.mu held by Snapshot (t.last is only
// read).
func (t *Tracker) entry(ctx context.Context, w *walk, repo *gitRepo, abs string) (Entry, bool) {
	fi, err := os.Lstat(abs)
	if err != nil || !fi.Mode().IsRegular() {
		return Entry{}, false
	}
	e := Entry{Size: fi.Size(), MTime: fi.ModTime(), Mode: fi.Mode(), Ino: inode(fi)}
	// The store keeps every content the last snapshot names (a prune
	// spares them), so an unchanged file is neither read nor checked.
	if old, ok := t.last[abs]; ok && old.sameMeta(e) {
		return old, true
	}
	w.changed.Store(true)
	if old, ok := w.reuse(ctx, t.store, repo, abs, e); ok {
		return old, true
	}
	if e.Size > t.maxFile {
		e.Lost = "larger than the checkpoint limit of " + formatBytes(t.maxFile)
		return e, true
	}
	// Outside git a file past the budget is not even read.
	if repo == nil && !w.reserve(e.Size) {
		e.Lost = w.overBudget()
		return e, true
	}
	reserved := repo == nil
	data, err := os.ReadFile(abs)
	if err != nil {
		w.unreserve(reserved, e.Size)
		e.Lost = "could not be read: " + err.Error()
		return e, true
	}
	if repo != nil {
		if id := repo.blobID(data); repo.has(ctx, id) {
			e.Git, e.repo = id, repo
			return e, true
		}
		if !w.reserve(int64(len(data))) {
			e.Lost = w.overBudget()
			return e, true
		}
	}
	sum, err := t.store.Put(data)
	if err != nil {
		e.Lost = err.Error()
		return e, true
	}
	e.Sum = sum
	return e, true
}

// Change is one file a command changed between two snapshots: its entry
// before (Before.Sum "" and Existed false: it did not exist) and after.
type Change struct {
	Path          string
	Existed, Left bool // it existed before; it exists after
	Before, After Entry
}

// Diff lists the files that differ between before and after, and the
// left-out directories whose modification time changed (something in
// them was added, removed or renamed, which no checkpoint keeps).
func Diff(before, after Snapshot) (changes []Change, skipped []string) {
	for p, a := range after.Files {
		b, ok := before.Files[p]
		if ok && b.sameMeta(a) && b.Sum == a.Sum && b.Git == a.Git {
			continue
		}
		changes = append(changes, Change{Path: p, Existed: ok, Left: true, Before: b, After: a})
	}
	for p, b := range before.Files {
		if _, ok := after.Files[p]; !ok {
			changes = append(changes, Change{Path: p, Existed: true, Before: b})
		}
	}
	for p, m := range after.Skipped {
		if bm, ok := before.Skipped[p]; !ok || !bm.Equal(m) {
			skipped = append(skipped, p)
		}
	}
	return changes, skipped
}

func formatBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + " GiB"
	case n >= 1<<20:
		return strconv.FormatInt(n>>20, 10) + " MB"
	case n >= 1<<10:
		return strconv.FormatInt(n>>10, 10) + " KB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// Last returns the latest snapshot's files (shared: not to be changed).
func (t *Tracker) Last() map[string]Entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last
}
