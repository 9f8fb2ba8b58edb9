package workspace

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// Excerpt is the part of a text a range covers, with the lines it spans.
type Excerpt struct {
	Text string
	// StartLine and EndLine are 1-based and inclusive. A range that ends
	// at the start of a line does not include that line.
	StartLine, EndLine int
	// Omitted counts the bytes of the range a limit left out after Text
	// (Store.Excerpt); LastLine is then the range's own last line, and
	// EndLine the last line Text reaches.
	Omitted, LastLine int
}

// Cut returns the part of text that r covers, for showing a selection to
// the model. A range whose end comes before its start is read as if it
// were the other way round.
func Cut(text string, r Range, enc Encoding) Excerpt {
	t := newIndexedText(text)
	return t.excerpt(&r, enc, -1)
}

// Excerpt returns the part of the file at path that r covers (all of it
// when r is nil) as the user sees it, like ReadFile, but at most limit
// bytes of it: a longer range is cut after its last whole line within the
// limit, or within its first line, at a character boundary, when that
// line alone is longer. The text is a copy of its own, so an excerpt kept
// (in a prompt, a history) does not keep a large document alive, and an
// open document is read through its line index without being copied.
func (s *Store) Excerpt(path string, r *Range, limit int) (Excerpt, error) {
	s.mu.RLock()
	enc := s.enc
	if e, ok := s.docs[clean(path)]; ok {
		defer s.mu.RUnlock()
		return e.text.excerpt(r, enc, limit), nil
	}
	s.mu.RUnlock()
	data, err := ReadRegular(path)
	if err != nil {
		return Excerpt{}, err
	}
	t := newIndexedText(string(data))
	return t.excerpt(r, enc, limit), nil
}

// excerpt is Cut of r (nil: the whole text) with a byte limit (negative:
// none), its text cloned.
func (t *indexedText) excerpt(r *Range, enc Encoding, limit int) Excerpt {
	start, end := 0, len(t.text)
	if r != nil {
		start, end = t.rangeOffsets(*r, enc)
	}
	sp, ep := t.position(start, enc), t.position(end, enc)
	ex := Excerpt{StartLine: sp.Line + 1, EndLine: ep.Line + 1}
	if ep.Line > sp.Line && ep.Character == 0 {
		ex.EndLine--
	}
	if limit >= 0 && end-start > limit {
		cut := t.cutPoint(start, limit)
		ex.Omitted, ex.LastLine = end-cut, ex.EndLine
		ex.EndLine = t.position(max(cut-1, start), enc).Line + 1
		end = cut
	}
	ex.Text = strings.Clone(t.text[start:end])
	return ex
}

// cutPoint is where a text of at most limit bytes from start ends: the
// start of the last line that begins within the limit, or, when none does
// after start, the last character boundary within it.
func (t *indexedText) cutPoint(start, limit int) int {
	i, found := slices.BinarySearch(t.lines, start+limit)
	if !found {
		i--
	}
	if t.lines[i] > start {
		return t.lines[i]
	}
	cut := start + limit
	for cut > start && !utf8.RuneStart(t.text[cut]) {
		cut--
	}
	return cut
}

// TextView is an open document's text and its line index, lent to the
// function given to Store.View.
type TextView struct {
	t   *indexedText
	enc Encoding
}

// Text is the document's text.
func (v TextView) Text() string { return v.t.text }

// LineCount is the number of lines (a text ending in a line break has an
// empty last line).
func (v TextView) LineCount() int { return len(v.t.lines) }

// LineStart is the byte offset where line i starts; past the last line,
// the end of the text.
func (v TextView) LineStart(i int) int {
	if i >= len(v.t.lines) {
		return len(v.t.text)
	}
	return v.t.lines[i]
}

// Line is line i with its line break.
func (v TextView) Line(i int) string {
	return v.t.text[v.LineStart(i):v.LineStart(i+1)]
}

// Position is the position of byte offset off, in the store's encoding.
func (v TextView) Position(off int) Position { return v.t.position(off, v.enc) }

// View calls f with the open document at path, reading it in place: no
// copy of the text or of its index is made. f runs under the store's
// read lock, so it must not keep v or call the store's methods that
// change it. View reports whether the document is open.
func (s *Store) View(path string, f func(v TextView)) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.docs[clean(path)]
	if ok {
		f(TextView{t: &e.text, enc: s.enc})
	}
	return ok
}
