package workspace

import (
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// The one renderer of changes for people: approvals, fileChange events
// and a turn's diff all show a change set through Diff and count it
// through Stats, so the numbers and the text always agree.

// Diff renders the change as a git-style unified diff with three lines of
// context. Paths are named relative to dir when they lie inside it, as
// git does (a/NAME, b/NAME); /dev/null stands for a missing side. A
// change that changes nothing renders as "".
func (c FileChange) Diff(dir string) string {
	old, neu := string(c.OldContent), string(c.NewContent)
	oldLabel, newLabel := c.labels(dir)
	if c.Kind == Delete {
		neu = ""
	}
	if old == neu && oldLabel[2:] == newLabel[2:] {
		return ""
	}
	d, err := udiff.ToUnifiedDiff(oldLabel, newLabel, old, udiff.Lines(old, neu), udiff.DefaultContextLines)
	if err != nil {
		return "" // cannot happen: the edits come from the same contents
	}
	return d.String()
}

// Stats counts the lines the change adds and removes.
func (c FileChange) Stats() (additions, deletions int) {
	old, neu := string(c.OldContent), string(c.NewContent)
	if c.Kind == Delete {
		neu = ""
	}
	d, err := udiff.ToUnifiedDiff("a", "b", old, udiff.Lines(old, neu), 0)
	if err != nil {
		return 0, 0
	}
	for _, h := range d.Hunks {
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				additions++
			case udiff.Delete:
				deletions++
			}
		}
	}
	return additions, deletions
}

// Diff renders every change of the set, in order, as one diff.
func (cs *ChangeSet) Diff(dir string) string {
	var b strings.Builder
	for _, c := range cs.Changes {
		b.WriteString(c.Diff(dir))
	}
	return b.String()
}

// Stats counts the lines the whole set adds and removes.
func (cs *ChangeSet) Stats() (additions, deletions int) {
	for _, c := range cs.Changes {
		a, d := c.Stats()
		additions += a
		deletions += d
	}
	return additions, deletions
}

// relName names path relative to dir when it lies inside, with slashes;
// absolute otherwise.
func relName(dir, path string) string {
	if dir != "" {
		if rel, err := filepath.Rel(dir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return filepath.ToSlash(rel)
		}
	}
	return path
}
