package patch

import (
	"bytes"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Edit replaces the bytes [Start, End) of a Change's OldContent with New.
type Edit struct {
	Start, End int
	New        string
}

// Edits returns edits that turn OldContent into NewContent: whole lines,
// sorted, not overlapping, and minimal within each changed region: what an
// editor needs to apply the change as text edits.
//
// For an Update made by Apply they come from the hunks themselves, so they
// stay exact and cheap however large the file and however many hunks.
// Otherwise they come from a line diff, which go-udiff makes approximate
// beyond about a hundred changed places.
func (c Change) Edits() []Edit {
	if c.editsKnown {
		return c.edits
	}
	return diffLines(c.OldContent, c.NewContent)
}

// span is a region of an updated file that a replacement produced: lines
// [oldFrom, oldTo) of the original became lines [outFrom, outTo) of the
// result.
type span struct{ oldFrom, oldTo, outFrom, outTo int }

// spanEdits diffs each span of the old and new contents line by line.
func spanEdits(t *text, old, neu []byte, out []outLine, offsets []int, spans []span) []Edit {
	var edits []Edit
	for i, s := range spans {
		// A pure insertion after a last line that had no newline gives
		// that line one: take it into the region.
		if s.oldFrom == len(t.lines) && s.oldFrom > 0 && !t.finalNewline &&
			s.outFrom > 0 && out[s.outFrom-1].orig == s.oldFrom-1 &&
			(i == 0 || spans[i-1].oldTo < s.oldFrom) {
			s.oldFrom, s.outFrom = s.oldFrom-1, s.outFrom-1
		}
		start := t.start[s.oldFrom]
		for _, e := range diffLines(old[start:t.start[s.oldTo]], neu[offsets[s.outFrom]:offsets[s.outTo]]) {
			edits = append(edits, Edit{Start: start + e.Start, End: start + e.End, New: e.New})
		}
	}
	return edits
}

// diffLines returns line edits from old to new: the common leading and
// trailing lines are set aside, and go-udiff diffs what is left.
func diffLines(old, neu []byte) []Edit {
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
	edits := make([]Edit, len(mid))
	for i, e := range mid {
		edits[i] = Edit{Start: p + e.Start, End: p + e.End, New: e.New}
	}
	return edits
}
