package search

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
)

// walkOrdered visits the files below opts.Root one at a time in path
// order (the order of their slash-separated relative paths as strings),
// with the same rules as walk, until visit returns false or ctx is
// done. A search that stops at its limit walks this way, so that what
// it found is the first files of the tree, whatever the timing. Each
// file visit is given holds a reference to its directory (f.dir), which
// visit must release once it has opened the file or passed it over.
func walkOrdered(ctx context.Context, opts walkOptions, visit func(walkFile) bool) []Note {
	opts.Root = filepath.Clean(opts.Root) // see walk
	if opts.Skip != nil && opts.Skip(opts.Root, false) {
		return nil
	}
	w := &walker{opts: opts, ctx: ctx}
	var stack *ignoreStack
	if !opts.NoIgnore {
		stack = ignoreChain(opts.Base, opts.Root)
	}
	w.ordered(dirJob{abs: opts.Root, stack: stack}, visit)
	return w.notes
}

// ordered walks one directory depth first, its entries in path order,
// and reports whether the walk goes on.
func (w *walker) ordered(job dirJob, visit func(walkFile) bool) bool {
	if w.ctx.Err() != nil {
		job.parent.release()
		return false
	}
	stack, d, entries := w.list(job)
	defer d.release()
	for i := range entries {
		if entries[i].dir {
			// "a/…" sorts after "a.c" and before "a0".
			entries[i].key += "/"
		}
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.key, b.key) })
	for _, e := range entries {
		d.retain()
		var more bool
		if e.dir {
			more = w.ordered(dirJob{abs: e.abs, stack: stack, parent: d, name: e.name}, visit)
		} else {
			more = visit(walkFile{Abs: e.abs, Rel: w.rel(e.abs), dir: d, name: e.name, link: e.link})
		}
		if !more {
			return false
		}
	}
	return true
}
