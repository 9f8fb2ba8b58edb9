package workspace

import (
	"strings"
	"unicode/utf8"
)

// Encoding is the unit a position's character offset counts in: the LSP
// position encoding negotiated at initialize.
type Encoding uint8

const (
	// UTF16 counts UTF-16 code units; the LSP default, so the zero value.
	UTF16 Encoding = iota
	// UTF8 counts bytes.
	UTF8
	// UTF32 counts Unicode code points.
	UTF32
)

// String returns the LSP name of the encoding ("utf-16", "utf-8", "utf-32").
func (e Encoding) String() string {
	switch e {
	case UTF8:
		return "utf-8"
	case UTF32:
		return "utf-32"
	default:
		return "utf-16"
	}
}

// ParseEncoding maps an LSP position encoding name to an Encoding.
func ParseEncoding(name string) (Encoding, bool) {
	switch name {
	case "utf-16":
		return UTF16, true
	case "utf-8":
		return UTF8, true
	case "utf-32":
		return UTF32, true
	}
	return UTF16, false
}

// Position is a zero-based line and a character offset within that line,
// counted in some Encoding. Lines end at "\n", "\r\n" or a lone "\r", as LSP
// defines them.
type Position struct {
	Line      int
	Character int
}

// Range is the half-open span [Start, End).
type Range struct {
	Start Position
	End   Position
}

// Offset returns the byte offset in text of pos. Out-of-range positions clamp
// the way LSP clients expect: a character past the end of its line means the
// end of that line (before the line break), a line past the last line means
// the end of the text, and an offset inside a multi-unit character rounds
// down to that character's start.
func Offset(text string, pos Position, enc Encoding) int {
	t := newIndexedText(text)
	return t.offset(pos, enc)
}

// PositionAt returns the position of byte offset off in text, the inverse of
// Offset. An offset past the end means the end of the text; an offset inside
// a line break or a multi-byte character rounds down.
func PositionAt(text string, off int, enc Encoding) Position {
	t := newIndexedText(text)
	return t.position(off, enc)
}

// lineScanner finds line breaks in a text from left to right. It remembers
// the next "\n" so that walking all lines stays linear even for texts that
// break lines with a lone "\r" only.
type lineScanner struct {
	text string
	nl   int // index of the next '\n' at or after the last offset; -1 none left; -2 unknown
}

func newLineScanner(text string) lineScanner {
	return lineScanner{text: text, nl: -2}
}

// next returns the line break that ends the line starting at from: its
// start, and the start of the following line. brk is -1 on the last line.
func (ls *lineScanner) next(from int) (brk, next int) {
	if ls.nl != -1 && ls.nl < from {
		ls.nl = strings.IndexByte(ls.text[from:], '\n')
		if ls.nl >= 0 {
			ls.nl += from
		}
	}
	limit := len(ls.text)
	if ls.nl >= 0 {
		limit = ls.nl
	}
	if i := strings.IndexByte(ls.text[from:limit], '\r'); i >= 0 {
		brk = from + i
		if brk+1 < len(ls.text) && ls.text[brk+1] == '\n' {
			return brk, brk + 2
		}
		return brk, brk + 1
	}
	if ls.nl < 0 {
		return -1, len(ls.text)
	}
	return ls.nl, ls.nl + 1
}

// charOffset returns the byte offset within line of the character offset
// char counted in enc, clamped to the line and rounded down to a character
// boundary.
func charOffset(line string, char int, enc Encoding) int {
	if char <= 0 {
		return 0
	}
	if enc == UTF8 {
		if char >= len(line) {
			return len(line)
		}
		for char > 0 && !utf8.RuneStart(line[char]) {
			char--
		}
		return char
	}
	n := 0
	for i, r := range line {
		w := 1
		if enc == UTF16 && r >= 0x10000 {
			w = 2
		}
		if n+w > char {
			return i
		}
		n += w
	}
	return len(line)
}

// units returns the length of s counted in enc.
func units(s string, enc Encoding) int {
	switch enc {
	case UTF8:
		return len(s)
	case UTF32:
		return utf8.RuneCountInString(s)
	}
	n := 0
	for _, r := range s {
		n++
		if r >= 0x10000 {
			n++
		}
	}
	return n
}
