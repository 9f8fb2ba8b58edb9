package patch

import (
	"bytes"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// The tests render changes as unified diffs from their exact edits, to
// check the edits and to feed the unified-diff parser with diffs whose
// meaning is known. agent-ls itself shows changes through
// workspace.FileChange.Diff.

// Stats returns how many lines the change adds and removes, counted on its
// Edits.
func (c Change) Stats() (additions, deletions int) {
	switch c.Kind {
	case Delete:
		return 0, countLines(c.OldContent)
	case Add:
		if c.OldContent == nil {
			return countLines(c.NewContent), 0
		}
	}
	for _, e := range c.Edits() {
		additions += countLines([]byte(e.New))
		deletions += countLines(c.OldContent[e.Start:e.End])
	}
	return additions, deletions
}

// countLines counts lines, a last line without a newline included.
func countLines(b []byte) int {
	n := bytes.Count(b, []byte{'\n'})
	if len(b) > 0 && b[len(b)-1] != '\n' {
		n++
	}
	return n
}

// UnifiedDiff renders the change as a git-style unified diff with three
// lines of context, paths prefixed with a/ and b/ and written as they are
// (not quoted). File modes are not known here; added and deleted files are
// shown with mode 100644. An update that changes nothing renders as "".
func (c Change) UnifiedDiff() string {
	if c.Kind == Update && c.MovePath == "" && bytes.Equal(c.OldContent, c.NewContent) {
		return ""
	}
	var b strings.Builder
	from, to := c.Path, c.NewPath()
	b.WriteString("diff --git a/" + from + " b/" + to + "\n")
	oldLabel, newLabel := "a/"+from, "b/"+to
	switch {
	case c.Kind == Add && c.OldContent == nil:
		b.WriteString("new file mode 100644\n")
		oldLabel = devNull
	case c.Kind == Delete:
		b.WriteString("deleted file mode 100644\n")
		newLabel = devNull
	case c.MovePath != "":
		b.WriteString("rename from " + from + "\nrename to " + to + "\n")
	}
	old, neu := string(c.OldContent), string(c.NewContent)
	if old == neu {
		return b.String()
	}
	edits := c.Edits()
	uedits := make([]udiff.Edit, len(edits))
	for i, e := range edits {
		uedits[i] = udiff.Edit{Start: e.Start, End: e.End, New: e.New}
	}
	d, err := udiff.ToUnified(oldLabel, newLabel, old, uedits, udiff.DefaultContextLines)
	if err != nil {
		return b.String() // cannot happen: the edits come from the same contents
	}
	b.WriteString(d)
	return b.String()
}

// Stats returns the total lines added and removed by the change set.
func (cs ChangeSet) Stats() (additions, deletions int) {
	for _, c := range cs {
		a, d := c.Stats()
		additions += a
		deletions += d
	}
	return additions, deletions
}

// UnifiedDiff renders every change, in order, as one git-style diff.
func (cs ChangeSet) UnifiedDiff() string {
	var b strings.Builder
	for _, c := range cs {
		b.WriteString(c.UnifiedDiff())
	}
	return b.String()
}
