package patch

import (
	"bytes"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// The tests render changes as unified diffs from a line diff of their
// contents (diffLines), to feed the unified-diff parser with diffs whose
// meaning is known. agent-ls itself shows changes through
// workspace.FileChange.Diff.

// Stats returns how many lines the change adds and removes, counted on a
// line diff of its contents.
func (c Change) Stats() (additions, deletions int) {
	switch c.Kind {
	case Delete:
		return 0, countLines(c.OldContent)
	case Add:
		if c.OldContent == nil {
			return countLines(c.NewContent), 0
		}
	}
	for _, e := range diffLines(c.OldContent, c.NewContent) {
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
	d, err := udiff.ToUnified(oldLabel, newLabel, old, diffLines(c.OldContent, c.NewContent), udiff.DefaultContextLines)
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

// diffLines returns line edits from old to new: the common leading and
// trailing lines are set aside, and go-udiff diffs what is left.
func diffLines(old, neu []byte) []udiff.Edit {
	if bytes.Equal(old, neu) {
		return nil
	}
	// Common prefix and suffix, in whole lines.
	p := 0
	for {
		i := bytes.IndexByte(old[p:], '\n')
		if i < 0 || p+i >= len(neu) || !bytes.Equal(old[p:p+i+1], neu[p:p+i+1]) {
			break
		}
		p += i + 1
	}
	s := 0
	for {
		o, n := old[p:len(old)-s], neu[p:len(neu)-s]
		if len(o) == 0 || len(n) == 0 || o[len(o)-1] != '\n' || n[len(n)-1] != '\n' {
			break
		}
		i := bytes.LastIndexByte(o[:len(o)-1], '\n') + 1
		line := o[i:]
		if !bytes.HasSuffix(n, line) || (len(n) > len(line) && n[len(n)-len(line)-1] != '\n') {
			break
		}
		s += len(line)
	}
	mid := udiff.Lines(string(old[p:len(old)-s]), string(neu[p:len(neu)-s]))
	for i := range mid {
		mid[i].Start += p
		mid[i].End += p
	}
	return mid
}
