package search

import (
	"container/heap"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Entry is a file or folder a FileIndex found.
type Entry struct {
	// Abs is its absolute path.
	Abs string
	// Dir: it is a folder.
	Dir bool
}

// FileIndex keeps, per root, the files and folders below it as the walk
// sees them (ignore files honoured, hidden files and .git left out), for
// completing a user's @-mentions as they type: the first query of a root
// walks it, later ones score the list kept in memory (at most maxListed
// entries a root). Changes reported with Changed are applied to the
// lists at once; a list older than MaxAge is walked again in the
// background while the old one still answers, for changes nobody
// reported. It is safe for concurrent use.
type FileIndex struct {
	// MaxAge is how long a list answers before it is walked again (in
	// the background); 0 means 30 seconds.
	MaxAge time.Duration
	// Skip, when set, leaves out what the walk must not show (see
	// Glob.Skip).
	Skip func(abs string, link bool) bool

	mu    sync.Mutex
	lists map[string]*fileList
}

// fileList is one root's list.
type fileList struct {
	root  string
	ready chan struct{} // closed once the first walk is done

	mu         sync.Mutex
	paths      []string // relative, slash-separated; folders end in "/"
	lower      []string // paths in lower case
	built      time.Time
	refreshing bool
}

// Find returns the files and folders below roots that best match query,
// best first, at most limit (<= 0: 50). The query is matched fuzzily,
// case-insensitively, against each path relative to its root: its
// characters must appear in order, and a match in the file's own name,
// at word starts or in a run ranks higher. An empty query lists the
// shortest paths.
func (x *FileIndex) Find(ctx context.Context, roots []string, query string, limit int) []Entry {
	found, _ := x.find(ctx, roots, query, limit, -1)
	return found
}

// FindSoon is Find that waits at most wait for the first walk of a root
// (a root nobody asked about before): a root still being walked then is
// scored on what its walk has listed so far, and complete is false; ask
// again for the rest.
func (x *FileIndex) FindSoon(ctx context.Context, roots []string, query string, limit int, wait time.Duration) (found []Entry, complete bool) {
	return x.find(ctx, roots, query, limit, max(wait, 0))
}

// find is Find (wait < 0) or FindSoon.
func (x *FileIndex) find(ctx context.Context, roots []string, query string, limit int, wait time.Duration) ([]Entry, bool) {
	if limit <= 0 {
		limit = 50
	}
	query = strings.ToLower(strings.TrimPrefix(filepath.ToSlash(query), "./"))
	best := &topK{limit: limit}
	soon := ctx
	if wait >= 0 {
		var cancel context.CancelFunc
		soon, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	complete := true
	for _, root := range roots {
		l, ready := x.list(ctx, soon, filepath.Clean(root))
		if l == nil {
			continue
		}
		complete = complete && ready
		l.mu.Lock()
		paths, lower := l.paths, l.lower
		l.mu.Unlock()
		for i, p := range lower {
			if s := fuzzyScore(p, query); s >= 0 {
				best.offer(scored{score: s, root: l.root, rel: paths[i]})
			}
		}
	}
	out := make([]Entry, best.Len())
	for i := len(out) - 1; i >= 0; i-- {
		s := heap.Pop(best).(scored)
		out[i] = Entry{Abs: filepath.Join(s.root, filepath.FromSlash(strings.TrimSuffix(s.rel, "/"))), Dir: strings.HasSuffix(s.rel, "/")}
	}
	return out, complete && ctx.Err() == nil
}

// list returns root's list, walking root the first time, and starting a
// walk in the background when it is old. It waits for the first walk
// until soon ends (a partial list, ready false) or ctx does (nil).
func (x *FileIndex) list(ctx, soon context.Context, root string) (*fileList, bool) {
	x.mu.Lock()
	if x.lists == nil {
		x.lists = map[string]*fileList{}
	}
	l, ok := x.lists[root]
	if !ok {
		l = &fileList{root: root, ready: make(chan struct{})}
		x.lists[root] = l
		go func() {
			x.walk(l, true)
			close(l.ready)
		}()
	}
	x.mu.Unlock()
	select {
	case <-l.ready: // a list already made wins over a soon already over
	default:
		select {
		case <-l.ready:
		case <-ctx.Done():
			return nil, false
		case <-soon.Done():
			return l, false
		}
	}
	maxAge := x.MaxAge
	if maxAge <= 0 {
		maxAge = 30 * time.Second
	}
	l.mu.Lock()
	if time.Since(l.built) > maxAge && !l.refreshing {
		l.refreshing = true
		go x.walk(l, false)
	}
	l.mu.Unlock()
	return l, true
}

// maxListed bounds the entries of one root's list (a workspace that is a
// whole home folder): the walk stops there.
const maxListed = 500_000

// publishEvery is how many entries a first walk lists between the
// partial lists it shows FindSoon.
const publishEvery = 2048

// walk lists l's root again; the first walk (publish) shows what it has
// listed so far every publishEvery entries. A partial list shares its
// arrays with the walk, which only appends past what it showed.
func (x *FileIndex) walk(l *fileList, publish bool) {
	var mu sync.Mutex
	seen := map[string]bool{}
	var paths, lower []string
	shown := 0
	opts := walkOptions{Root: l.root, Base: ignoreBase(l.root, l.root), Skip: x.Skip}
	if fi, err := os.Stat(l.root); err == nil && fi.IsDir() {
		ctx, stop := context.WithCancel(context.Background())
		walk(ctx, opts, func(f walkFile) {
			mu.Lock()
			defer mu.Unlock()
			if len(paths) >= maxListed {
				stop()
				return
			}
			n := len(paths)
			paths = addPath(paths, seen, f.Rel)
			for _, p := range paths[n:] {
				lower = append(lower, strings.ToLower(p))
			}
			if publish && len(paths)-shown >= publishEvery {
				shown = len(paths)
				l.mu.Lock()
				l.paths, l.lower = paths, lower
				l.mu.Unlock()
			}
		})
		stop()
	}
	l.mu.Lock()
	l.paths, l.lower, l.built, l.refreshing = paths, lower, time.Now(), false
	l.mu.Unlock()
}

// addPath adds the file rel and the folders above it that are not in
// seen yet.
func addPath(paths []string, seen map[string]bool, rel string) []string {
	for i := 0; i < len(rel); i++ {
		if rel[i] == '/' && !seen[rel[:i+1]] {
			seen[rel[:i+1]] = true
			paths = append(paths, rel[:i+1])
		}
	}
	if !seen[rel] {
		seen[rel] = true
		paths = append(paths, rel)
	}
	return paths
}

// Changed tells the index that the files or folders at paths (absolute)
// were created, changed or deleted: each list that holds one is brought
// up to date now (an ignore file that changed has its root walked
// again).
func (x *FileIndex) Changed(paths ...string) {
	x.mu.Lock()
	lists := make([]*fileList, 0, len(x.lists))
	for _, l := range x.lists {
		lists = append(lists, l)
	}
	x.mu.Unlock()
	for _, l := range lists {
		select {
		case <-l.ready:
		default:
			continue // its first walk sees the change
		}
		for _, p := range paths {
			p = filepath.Clean(p)
			if p == l.root || !lexicallyWithin(l.root, p) {
				continue
			}
			if base := filepath.Base(p); base == ".gitignore" || base == ".ignore" {
				x.walk(l, false)
				continue
			}
			l.update(p, x.Skip)
		}
	}
}

// update makes l hold the file or folder at abs as it is now.
func (l *fileList) update(abs string, skip func(string, bool) bool) {
	rel, err := filepath.Rel(l.root, abs)
	if err != nil {
		return
	}
	rel = filepath.ToSlash(rel)
	fi, err := os.Lstat(abs)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		// Gone: it and whatever was below it.
		keep := func(p string) bool { return p != rel && p != rel+"/" && !strings.HasPrefix(p, rel+"/") }
		var paths, lower []string
		for i, p := range l.paths {
			if keep(p) {
				paths, lower = append(paths, p), append(lower, l.lower[i])
			}
		}
		l.paths, l.lower = paths, lower
		return
	}
	if fi.IsDir() || pathIgnored(walkOptions{Root: l.root, Base: ignoreBase(l.root, l.root), Skip: skip}, abs, false) ||
		(skip != nil && skip(filepath.Dir(abs), false)) {
		return // a folder shows once a file in it does
	}
	seen := make(map[string]bool, len(l.paths))
	for _, p := range l.paths {
		seen[p] = true
	}
	n := len(l.paths)
	// A new slice: Find may be scoring the old one.
	paths := addPath(append([]string(nil), l.paths...), seen, rel)
	lower := append([]string(nil), l.lower...)
	for _, p := range paths[n:] {
		lower = append(lower, strings.ToLower(p))
	}
	l.paths, l.lower = paths, lower
}

// scored is a candidate of Find.
type scored struct {
	score     int
	root, rel string
}

// topK keeps the limit best candidates; its root is the worst kept.
type topK struct {
	items []scored
	limit int
}

func (t *topK) offer(s scored) {
	if len(t.items) < t.limit {
		heap.Push(t, s)
		return
	}
	if worse(t.items[0], s) {
		t.items[0] = s
		heap.Fix(t, 0)
	}
}

// worse: a ranks below b (lower score; on a tie, the later path).
func worse(a, b scored) bool {
	if a.score != b.score {
		return a.score < b.score
	}
	return a.rel > b.rel
}

func (t *topK) Len() int           { return len(t.items) }
func (t *topK) Less(i, j int) bool { return worse(t.items[i], t.items[j]) }
func (t *topK) Swap(i, j int)      { t.items[i], t.items[j] = t.items[j], t.items[i] }
func (t *topK) Push(v any)         { t.items = append(t.items, v.(scored)) }
func (t *topK) Pop() any {
	v := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return v
}
