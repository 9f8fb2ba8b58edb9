package search

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// walkFile is one file the walk found.
type walkFile struct {
	Abs string
	Rel string // slash-separated, relative to the walk's root
	// dir is the directory holding the file, open while the walk lists
	// it (see walkOrdered for how long), and name the file's name there;
	// link: the file was reached through a symbolic link (it is then
	// opened by its path, following the link).
	dir  *dirHandle
	name string
	link bool
}

// open opens the regular file f and returns its size, refusing anything
// else without blocking on it, and a file over limit bytes.
func (f walkFile) open(limit int64) (diskFile, int64, error) { return openFile(f, limit) }

// walkOptions configure a walk.
type walkOptions struct {
	Root string // absolute directory
	// Base is where ignore files start to apply: the repository root or
	// the workspace, at or above Root.
	Base string
	// Hidden includes dot files and directories (never .git).
	Hidden bool
	// NoIgnore disregards .gitignore and .ignore files.
	NoIgnore bool
	// Skip, when set, leaves out a directory (link false: its path as
	// walked, below Root) or a file reached through a symbolic link (link
	// true: the link's path) for which it reports true: what the caller
	// may not read. The root is asked as a directory first.
	Skip func(abs string, link bool) bool
	// IgnoredDir, when set, is told of each directory an ignore file
	// leaves out (the walk does not enter it).
	IgnoredDir func(abs string)
	// Files, when set, keeps only the files whose name it accepts: asked
	// first, before a path is made or an ignore rule read for the file.
	Files func(name string) bool
}

// walk visits the files below opts.Root in parallel, skipping hidden and
// ignored entries and not following symbolic links to directories (so
// link loops cannot trap it). visit runs on several goroutines at once.
// Directories it could not read come back as notes; they do not stop the
// walk.
func walk(ctx context.Context, opts walkOptions, visit func(walkFile)) []Note {
	opts.Root = filepath.Clean(opts.Root) // the walk's paths are joined to it as they are (joinName)
	if opts.Skip != nil && opts.Skip(opts.Root, false) {
		return nil
	}
	w := &walker{opts: opts, visit: visit, ctx: ctx}
	w.cond = sync.NewCond(&w.mu)
	var stack *ignoreStack
	if !opts.NoIgnore {
		stack = ignoreChain(opts.Base, opts.Root)
	}
	w.queue = append(w.queue, dirJob{abs: opts.Root, stack: stack})
	w.pending = 1
	n := max(runtime.GOMAXPROCS(0), 2)
	var wg sync.WaitGroup
	for range n {
		wg.Go(w.work)
	}
	wg.Wait()
	return w.notes
}

type dirJob struct {
	abs   string
	stack *ignoreStack
	// parent, when set, is the directory holding this one, open, and
	// name this one's name there: it is opened relative to parent, and
	// the job holds a reference to parent until then.
	parent *dirHandle
	name   string
}

type walker struct {
	opts  walkOptions
	visit func(walkFile)
	ctx   context.Context

	mu      sync.Mutex
	cond    *sync.Cond
	queue   []dirJob // LIFO: depth first keeps the queue short
	pending int      // directories queued or being read
	notes   []Note
}

func (w *walker) work() {
	for {
		w.mu.Lock()
		for len(w.queue) == 0 && w.pending > 0 {
			w.cond.Wait()
		}
		if w.pending == 0 {
			w.mu.Unlock()
			return
		}
		job := w.queue[len(w.queue)-1]
		w.queue = w.queue[:len(w.queue)-1]
		w.mu.Unlock()

		if w.ctx.Err() == nil {
			w.readDir(job)
		} else {
			job.parent.release()
		}

		w.mu.Lock()
		if w.pending--; w.pending == 0 {
			w.cond.Broadcast()
		}
		w.mu.Unlock()
	}
}

// readDir queues the subdirectories of one directory, then visits its
// files: the other workers take the subdirectories meanwhile.
func (w *walker) readDir(job dirJob) {
	stack, d, entries := w.list(job)
	defer d.release()
	var subdirs []dirJob
	for _, e := range entries {
		if e.dir {
			d.retain()
			subdirs = append(subdirs, dirJob{abs: e.abs, stack: stack, parent: d, name: e.name})
		}
	}
	if len(subdirs) > 0 {
		w.mu.Lock()
		w.queue = append(w.queue, subdirs...)
		w.pending += len(subdirs)
		w.cond.Broadcast()
		w.mu.Unlock()
	}
	for _, e := range entries {
		if !e.dir {
			w.visit(walkFile{Abs: e.abs, Rel: w.rel(e.abs), dir: d, name: e.name, link: e.link})
		}
	}
}

// dirEntry is a file or a directory the walk goes on with.
type dirEntry struct {
	abs  string
	name string
	// key orders the entries of one directory in path order: the name,
	// with a slash after a directory's (its files' paths go on with
	// one).
	key  string
	dir  bool
	link bool // a file reached through a symbolic link
}

// rawEntry is a name a directory holds, and its type there.
type rawEntry struct {
	name string
	typ  fs.FileMode
}

// list opens and reads one directory and returns the ignore rules that
// apply in it, the directory (nil when it could not be read; release it
// once done), and the entries the walk goes on with (not hidden, not
// ignored, not left out by Skip; links followed to files only), in the
// order the system gave them.
func (w *walker) list(job dirJob) (*ignoreStack, *dirHandle, []dirEntry) {
	d, err := openDirJob(job)
	if err != nil {
		w.note(job.abs, err)
		return nil, nil, nil
	}
	var raw []rawEntry
	err = d.entries(func(name string, typ fs.FileMode) {
		raw = append(raw, rawEntry{name, typ})
	})
	if err != nil && len(raw) == 0 {
		d.release()
		w.note(job.abs, err)
		return nil, nil, nil
	}
	stack := job.stack
	if !w.opts.NoIgnore {
		for _, name := range ignoreFileNames {
			for _, e := range raw {
				if e.name == name {
					stack = stack.push(job.abs, filepath.Join(job.abs, name))
				}
			}
		}
	}
	out := make([]dirEntry, 0, len(raw))
	for _, e := range raw {
		name := e.name
		if name == ".git" || (!w.opts.Hidden && name[0] == '.') {
			continue
		}
		typ, link := e.typ, false
		if w.opts.Files != nil && !typ.IsDir() && !w.opts.Files(name) {
			continue
		}
		abs := joinName(job.abs, name)
		if typ&fs.ModeSymlink != 0 {
			// Follow links to files, not to directories.
			fi, err := os.Stat(abs)
			if err != nil || !fi.Mode().IsRegular() || (w.opts.Skip != nil && w.opts.Skip(abs, true)) {
				continue
			}
			typ, link = 0, true
		}
		switch {
		case typ.IsDir():
			if stack != nil && stack.ignoredName(abs, name, true) {
				if w.opts.IgnoredDir != nil {
					w.opts.IgnoredDir(abs)
				}
				continue
			}
			if w.opts.Skip != nil && w.opts.Skip(abs, false) {
				continue
			}
			out = append(out, dirEntry{abs: abs, name: name, key: name, dir: true})
		case typ.IsRegular():
			if stack != nil && stack.ignoredName(abs, name, false) {
				continue
			}
			out = append(out, dirEntry{abs: abs, name: name, key: name, link: link})
		}
	}
	return stack, d, out
}

// joinName is filepath.Join(dir, name) for a clean dir and a name a
// directory listed (never "", "." or "..", never with a separator),
// without cleaning the path again.
func joinName(dir, name string) string {
	if strings.HasSuffix(dir, string(filepath.Separator)) {
		return dir + name
	}
	return dir + string(filepath.Separator) + name
}

func (w *walker) rel(abs string) string {
	if len(abs) > len(w.opts.Root) && strings.HasPrefix(abs, w.opts.Root) && abs[len(w.opts.Root)] == filepath.Separator {
		return filepath.ToSlash(abs[len(w.opts.Root)+1:])
	}
	r, _ := filepath.Rel(w.opts.Root, abs)
	return filepath.ToSlash(r)
}

func (w *walker) note(abs string, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.notes = append(w.notes, Note{Rel: w.rel(abs), Err: plainErr(err)})
}

// ignoreChain loads the ignore files of base and of every directory
// between it and root (root's own are read by the walk), over git's
// excludes when base is a repository root.
func ignoreChain(base, root string) *ignoreStack {
	if base == "" || !lexicallyWithin(base, root) {
		return nil
	}
	s := gitExcludes(base, os.Getenv)
	if base == root {
		return s
	}
	rel, _ := filepath.Rel(base, root)
	dir := base
	parts := strings.Split(rel, string(filepath.Separator))
	for i := 0; ; i++ {
		for _, name := range ignoreFileNames {
			s = s.push(dir, filepath.Join(dir, name))
		}
		if i == len(parts)-1 {
			break
		}
		dir = filepath.Join(dir, parts[i])
	}
	return s
}

// ignoreBase is where ignore files start to apply for a walk of root: the
// enclosing git repository's root, else the workspace when root is in it,
// else root.
func ignoreBase(cwd, root string) string {
	for dir := root; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	if lexicallyWithin(cwd, root) {
		return cwd
	}
	return root
}

// pathIgnored reports whether abs, which the walk of root would not reach
// on disk (a file only open in the editor), is hidden or ignored.
func pathIgnored(opts walkOptions, abs string, isDir bool) bool {
	rel, err := filepath.Rel(opts.Root, abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return true
	}
	parts := strings.Split(rel, string(filepath.Separator))
	var stack *ignoreStack
	if !opts.NoIgnore {
		stack = ignoreChain(opts.Base, opts.Root)
	}
	dir := opts.Root
	for i, p := range parts {
		if p == ".git" || (!opts.Hidden && strings.HasPrefix(p, ".")) {
			return true
		}
		if !opts.NoIgnore {
			for _, name := range ignoreFileNames {
				stack = stack.push(dir, filepath.Join(dir, name))
			}
		}
		dir = filepath.Join(dir, p)
		if stack != nil && stack.ignored(dir, isDir || i < len(parts)-1) {
			return true
		}
	}
	return false
}
