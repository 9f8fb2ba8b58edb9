package workspace

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// indexedText is a text with the offset of every line start, kept up to date
// across edits so that an edit costs a lookup instead of a scan from the top
// of the document: a burst of keystrokes in a long file stays cheap.
type indexedText struct {
	text  string
	lines []int // lines[i] is the byte offset where line i starts; lines[0] == 0
}

func newIndexedText(text string) indexedText {
	// Sized once: every "\n" ends a line (a lone "\r", rare, may grow it).
	lines := make([]int, 1, strings.Count(text, "\n")+2)
	ls := newLineScanner(text)
	for from := 0; ; {
		brk, next := ls.next(from)
		if brk < 0 {
			break
		}
		lines = append(lines, next)
		from = next
	}
	return indexedText{text: text, lines: lines}
}

// lineEnd returns where the content of line i ends, before its break.
func (t *indexedText) lineEnd(i int) int {
	if i+1 >= len(t.lines) {
		return len(t.text)
	}
	end := t.lines[i+1] - 1 // before "\n" or a lone "\r"
	if t.text[end] == '\n' && end > t.lines[i] && t.text[end-1] == '\r' {
		end--
	}
	return end
}

// offset is Offset using the line index.
func (t *indexedText) offset(p Position, enc Encoding) int {
	if p.Line >= len(t.lines) {
		return len(t.text)
	}
	line := max(p.Line, 0)
	start := t.lines[line]
	return start + charOffset(t.text[start:t.lineEnd(line)], p.Character, enc)
}

// rangeOffsets returns the byte offsets of r's start and end, in order.
func (t *indexedText) rangeOffsets(r Range, enc Encoding) (start, end int) {
	if r.End.Line < r.Start.Line || (r.End.Line == r.Start.Line && r.End.Character < r.Start.Character) {
		r.Start, r.End = r.End, r.Start
	}
	start = t.offset(r.Start, enc)
	return start, max(start, t.offset(r.End, enc))
}

// position is PositionAt using the line index.
func (t *indexedText) position(off int, enc Encoding) Position {
	off = min(max(off, 0), len(t.text))
	line, found := slices.BinarySearch(t.lines, off)
	if !found {
		line-- // off is inside the line before the next start
	}
	start := t.lines[line]
	off = min(off, t.lineEnd(line)) // inside "\r\n": the end of the line
	for off > start && off < len(t.text) && !utf8.RuneStart(t.text[off]) {
		off--
	}
	return Position{Line: line, Character: units(t.text[start:off], enc)}
}

// apply applies one change.
func (t *indexedText) apply(c Change, enc Encoding) {
	if c.Range == nil {
		*t = newIndexedText(c.Text)
		return
	}
	start, end := t.rangeOffsets(*c.Range, enc)
	t.replace(start, end, c.Text)
}

// replace replaces text[start:end] with s and updates the line index.
func (t *indexedText) replace(start, end int, s string) {
	var b strings.Builder
	b.Grow(len(t.text) - (end - start) + len(s))
	b.WriteString(t.text[:start])
	b.WriteString(s)
	b.WriteString(t.text[end:])
	t.text = b.String()
	newEnd := start + len(s)

	// A line start before start keeps its place: the break before it is
	// untouched. A line start after end moves by the size difference: the
	// break before it lies at or after end, and whatever now precedes it
	// cannot change where it ends (a "\r" joining a "\n" into "\r\n" ends
	// where the "\n" did). The line starts in between, and one exactly at
	// start (a "\r" before start may now be joined by an inserted "\n"), are
	// found again by scanning the edited region. A break ending at start or
	// later begins at start-1 or later; a "\n" at start-1 ends at start
	// whether or not a "\r" precedes it.
	k, _ := slices.BinarySearch(t.lines, start)
	k = max(k, 1) // line 0 always starts at 0
	j, found := slices.BinarySearch(t.lines, end)
	if found {
		j++
	}
	var mid []int
	for i := max(start-1, 0); i < newEnd; i++ {
		var lineStart int
		switch t.text[i] {
		case '\n':
			lineStart = i + 1
		case '\r':
			lineStart = i + 1
			if lineStart < len(t.text) && t.text[lineStart] == '\n' {
				lineStart++
				i++
			}
		default:
			continue
		}
		if lineStart >= start && lineStart <= newEnd {
			mid = append(mid, lineStart)
		}
	}
	t.lines = slices.Replace(t.lines, k, j, mid...)
	if delta := len(s) - (end - start); delta != 0 {
		for i := k + len(mid); i < len(t.lines); i++ {
			t.lines[i] += delta
		}
	}
}
