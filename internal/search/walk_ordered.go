package search

import (
	"context"
	"slices"
	"strings"
)

// walkOrdered visits the files below opts.Root one at a time in path
// order (the order of their slash-separated relative paths as strings),
// with the same rules as walk, until visit returns false or ctx is
// done. A search that stops at its limit walks this way, so that what
// it found is the first files of the tree, whatever the timing.
func walkOrdered(ctx context.Context, opts walkOptions, visit func(walkFile) bool) []Note {
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
		return false
	}
	stack, entries := w.list(job)
	for i := range entries {
		if entries[i].dir {
			// "a/…" sorts after "a.c" and before "a0".
			entries[i].key += "/"
		}
	}
	slices.SortFunc(entries, func(a, b dirEntry) int { return strings.Compare(a.key, b.key) })
	for _, e := range entries {
		var more bool
		if e.dir {
			more = w.ordered(dirJob{abs: e.abs, stack: stack}, visit)
		} else {
			more = visit(walkFile{Abs: e.abs, Rel: w.rel(e.abs)})
		}
		if !more {
			return false
		}
	}
	return true
}
