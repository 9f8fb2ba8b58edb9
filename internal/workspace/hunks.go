package workspace

import (
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// Hunks are the units a user reviews a change by (protocol section 5.3):
// the hunks of the unified diff Diff renders, in its order, numbered from
// 0 per file. An added or deleted file has a single hunk (none when it is
// empty); a move that keeps the content has none.

// hunks are the change's hunks exactly as Diff renders them.
func (c FileChange) hunks() []*udiff.Hunk {
	old, neu := string(c.OldContent), string(c.NewContent)
	if c.Kind == Delete {
		neu = ""
	}
	if old == neu {
		return nil
	}
	d, err := udiff.ToUnifiedDiff("a", "b", old, udiff.Lines(old, neu), udiff.DefaultContextLines)
	if err != nil {
		return nil // cannot happen: the edits come from the same contents
	}
	return d.Hunks
}

// HunkCount is how many hunks the change's diff has.
func (c FileChange) HunkCount() int { return len(c.hunks()) }

// HunkDiffs renders each hunk of the change alone, with the file's
// headers as Diff names them, in Diff's order.
func (c FileChange) HunkDiffs(dir string) []string {
	hs := c.hunks()
	if len(hs) == 0 {
		return nil
	}
	from, to := c.labels(dir)
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = udiff.UnifiedDiff{From: from, To: to, Hunks: []*udiff.Hunk{h}}.String()
	}
	return out
}

// labels are the names Diff gives the two sides of the change.
func (c FileChange) labels(dir string) (from, to string) {
	target := c.Path
	if c.Kind == Move && c.NewPath != "" {
		target = c.NewPath
	}
	from, to = "a/"+relName(dir, c.Path), "b/"+relName(dir, target)
	if c.OldContent == nil && c.Kind != Delete {
		from = "/dev/null"
	}
	if c.Kind == Delete {
		to = "/dev/null"
	}
	return from, to
}

// WithHunks is the change reduced to the hunks accept says yes to (by
// index, as HunkCount counts them). It reports false when the file is
// to stay as it is: every hunk refused, or, for a change without hunks,
// whole false. A partly accepted update or move keeps its OldContent, so
// applying it still checks that the file holds what the change was
// computed from; an added or deleted file, with its single hunk, is
// changed whole or not at all.
func (c FileChange) WithHunks(accept func(index int) bool, whole bool) (FileChange, bool) {
	hs := c.hunks()
	if len(hs) == 0 {
		return c, whole
	}
	n := 0
	for i := range hs {
		if accept(i) {
			n++
		}
	}
	switch {
	case n == 0:
		return c, false
	case n == len(hs):
		return c, true
	}
	c.NewContent = []byte(keepHunks(string(c.OldContent), hs, accept))
	return c, true
}

// keepHunks applies to old only the hunks accept says yes to. The hunks
// come from a diff of old, in order and apart from each other, so each
// one's old lines are where it says they are.
func keepHunks(old string, hs []*udiff.Hunk, accept func(int) bool) string {
	lines := strings.SplitAfter(old, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	next := 0 // the next line of old to copy
	for i, h := range hs {
		for ; next < h.FromLine-1 && next < len(lines); next++ {
			b.WriteString(lines[next])
		}
		yes := accept(i)
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Equal:
				b.WriteString(l.Content)
				next++
			case udiff.Delete:
				if !yes {
					b.WriteString(l.Content)
				}
				next++
			case udiff.Insert:
				if yes {
					b.WriteString(l.Content)
				}
			}
		}
	}
	for ; next < len(lines); next++ {
		b.WriteString(lines[next])
	}
	return b.String()
}
