package workspace

import (
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func pos(line, char int) Position { return Position{Line: line, Character: char} }

func rng(l1, c1, l2, c2 int) *Range { return &Range{Start: pos(l1, c1), End: pos(l2, c2)} }

func TestOffset(t *testing.T) {
	// "a𝄞b": 𝄞 (U+1D11E) is 4 bytes, 2 UTF-16 units, 1 code point.
	const astral = "a𝄞b\nxy"
	tests := []struct {
		name string
		text string
		pos  Position
		enc  Encoding
		want int
	}{
		{"start", "abc", pos(0, 0), UTF16, 0},
		{"middle", "abc", pos(0, 2), UTF16, 2},
		{"char past end of line clamps to line end", "abc\ndef", pos(0, 99), UTF16, 3},
		{"line past end is end of text", "abc\ndef", pos(5, 0), UTF16, 7},
		{"line just past last line", "abc\n", pos(2, 3), UTF16, 4},
		{"empty last line after newline", "abc\n", pos(1, 0), UTF16, 4},
		{"empty text", "", pos(0, 3), UTF16, 0},
		{"second line", "abc\ndef", pos(1, 1), UTF16, 5},

		{"crlf second line", "ab\r\ncd", pos(1, 1), UTF16, 5},
		{"crlf clamps before the break", "ab\r\ncd", pos(0, 5), UTF16, 2},
		{"lone cr is a line break", "ab\rcd", pos(1, 0), UTF16, 3},
		{"mixed endings", "a\r\nb\rc\nd", pos(3, 1), UTF16, 8},
		{"mixed endings, cr line", "a\r\nb\rc\nd", pos(2, 0), UTF16, 5},
		{"cr then lf across lines stays one break", "a\r\n\r\nb", pos(2, 0), UTF16, 5},
		{"lf then cr is two breaks", "a\n\rb", pos(2, 0), UTF16, 3},

		{"utf16 after astral", astral, pos(0, 3), UTF16, 5},
		{"utf16 inside surrogate pair rounds down", astral, pos(0, 2), UTF16, 1},
		{"utf16 astral line end", astral, pos(0, 4), UTF16, 6},
		{"utf8 after astral", astral, pos(0, 5), UTF8, 5},
		{"utf8 inside astral rounds down", astral, pos(0, 3), UTF8, 1},
		{"utf32 after astral", astral, pos(0, 2), UTF32, 5},
		{"utf32 line end", astral, pos(0, 3), UTF32, 6},
		{"utf32 past line end", astral, pos(0, 9), UTF32, 6},
		{"utf16 bmp non-ascii", "é€x", pos(0, 2), UTF16, 5},
		{"utf8 bmp non-ascii", "é€x", pos(0, 5), UTF8, 5},
		{"second line after astral line", astral, pos(1, 1), UTF16, 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Offset(tt.text, tt.pos, tt.enc); got != tt.want {
				t.Errorf("Offset(%q, %v, %v) = %d, want %d", tt.text, tt.pos, tt.enc, got, tt.want)
			}
			if got := refOffset(tt.text, tt.pos, tt.enc); got != tt.want {
				t.Errorf("reference Offset(%q, %v, %v) = %d, want %d", tt.text, tt.pos, tt.enc, got, tt.want)
			}
		})
	}
}

func TestPositionAt(t *testing.T) {
	tests := []struct {
		text string
		off  int
		enc  Encoding
		want Position
	}{
		{"abc", 2, UTF16, pos(0, 2)},
		{"ab\r\ncd", 5, UTF16, pos(1, 1)},
		{"ab\r\ncd", 3, UTF16, pos(0, 2)}, // between \r and \n
		{"ab\r\ncd", 4, UTF16, pos(1, 0)},
		{"a\rb", 2, UTF16, pos(1, 0)},
		{"a𝄞b", 5, UTF16, pos(0, 3)},
		{"a𝄞b", 3, UTF16, pos(0, 1)}, // inside the character
		{"a𝄞b", 5, UTF8, pos(0, 5)},
		{"a𝄞b", 5, UTF32, pos(0, 2)},
		{"abc\n", 99, UTF16, pos(1, 0)},
	}
	for _, tt := range tests {
		if got := PositionAt(tt.text, tt.off, tt.enc); got != tt.want {
			t.Errorf("PositionAt(%q, %d, %v) = %v, want %v", tt.text, tt.off, tt.enc, got, tt.want)
		}
	}
}

func TestPositionRoundTrip(t *testing.T) {
	const text = "a𝄞b\r\n\rx€é\n\n😀😀\r\nend"
	for _, enc := range []Encoding{UTF8, UTF16, UTF32} {
		for off := 0; off <= len(text); off++ {
			if !utf8.RuneStart(text[min(off, len(text)-1)]) && off < len(text) {
				continue
			}
			if off > 0 && text[off-1] == '\r' && off < len(text) && text[off] == '\n' {
				continue
			}
			p := PositionAt(text, off, enc)
			if got := Offset(text, p, enc); got != off {
				t.Errorf("%v: offset %d -> %v -> %d", enc, off, p, got)
			}
		}
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		enc     Encoding
		changes []Change
		want    string
	}{
		{"insert", "hello", UTF16, []Change{{rng(0, 5, 0, 5), " world"}}, "hello world"},
		{"replace all", "hello", UTF16, []Change{{nil, "bye"}}, "bye"},
		{"full then incremental", "x", UTF16, []Change{{nil, "abc"}, {rng(0, 1, 0, 2), "B"}}, "aBc"},
		{"delete across crlf", "ab\r\ncd", UTF16, []Change{{rng(0, 2, 1, 0), ""}}, "abcd"},
		{"insert newline in crlf text", "ab\r\ncd", UTF16, []Change{{rng(1, 1, 1, 1), "\r\n"}}, "ab\r\nc\r\nd"},
		{"replace astral utf16", "a😀b", UTF16, []Change{{rng(0, 1, 0, 3), "x"}}, "axb"},
		{"replace astral utf8", "a😀b", UTF8, []Change{{rng(0, 1, 0, 5), "x"}}, "axb"},
		{"replace astral utf32", "a😀b", UTF32, []Change{{rng(0, 1, 0, 2), "x"}}, "axb"},
		{"reversed range", "abcd", UTF16, []Change{{rng(0, 3, 0, 1), ""}}, "ad"},
		{"append past end", "ab\n", UTF16, []Change{{rng(7, 0, 9, 0), "z"}}, "ab\nz"},
		{"sequential changes see earlier ones", "abc", UTF16, []Change{
			{rng(0, 0, 0, 0), "1\n"},
			{rng(1, 0, 1, 1), "A"},
		}, "1\nAbc"},
		{"join cr and lf lines", "a\rb\nc", UTF16, []Change{{rng(1, 0, 1, 1), ""}}, "a\r\nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Apply(tt.text, tt.enc, tt.changes...); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCut(t *testing.T) {
	const text = "func f() {\r\n\treturn 😀\r\n}\n"
	tests := []struct {
		name string
		r    *Range
		enc  Encoding
		want Excerpt
	}{
		{"utf16 within a line", rng(1, 1, 1, 10), UTF16, Excerpt{"return 😀", 2, 2, 0, 0}},
		{"utf8 within a line", rng(1, 1, 1, 12), UTF8, Excerpt{"return 😀", 2, 2, 0, 0}},
		{"whole text", rng(0, 0, 3, 0), UTF32, Excerpt{text, 1, 3, 0, 0}},
		{"whole lines end at the next line's start", rng(0, 0, 2, 0), UTF16, Excerpt{"func f() {\r\n\treturn 😀\r\n", 1, 2, 0, 0}},
		{"into the next line", rng(0, 5, 1, 1), UTF16, Excerpt{"f() {\r\n\t", 1, 2, 0, 0}},
		{"empty", rng(2, 0, 2, 0), UTF16, Excerpt{"", 3, 3, 0, 0}},
		{"reversed", rng(1, 7, 1, 1), UTF16, Excerpt{"return", 2, 2, 0, 0}},
	}
	for _, tt := range tests {
		if got := Cut(text, *tt.r, tt.enc); got != tt.want {
			t.Errorf("%s: Cut = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

// TestApplyRandom applies thousands of random edits, mixing line endings,
// astral characters and out-of-range positions, and compares every step
// with a straightforward reference implementation.
func TestApplyRandom(t *testing.T) {
	pieces := []string{"a", "bc", "é", "€", "𝄞", "😀", "\n", "\r\n", "\r", " ", "xyz"}
	for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
		t.Run(enc.String(), func(t *testing.T) {
			r := rand.New(rand.NewPCG(1, uint64(enc)))
			text := "package main\r\n\nfunc 😀() {\r\treturn \"𝄞\"\n}\n"
			indexed := newIndexedText(text)
			for i := range 4000 {
				var b strings.Builder
				for range r.IntN(4) {
					b.WriteString(pieces[r.IntN(len(pieces))])
				}
				c := Change{Text: b.String()}
				if r.IntN(200) == 0 {
					c.Range = nil
				} else {
					c.Range = &Range{Start: randPos(r, text, enc), End: randPos(r, text, enc)}
					if len(text) > 2000 && r.IntN(2) == 0 {
						c.Text = "" // keep the text from growing without bound
					}
				}
				want := refApply(text, enc, c)
				if got := Apply(text, enc, c); got != want {
					t.Fatalf("edit %d %+v on %q:\ngot  %q\nwant %q", i, c.Range, text, got, want)
				}
				// The store's path: the same text, edited with its line index
				// kept up to date rather than rebuilt.
				indexed.apply(c, enc)
				if indexed.text != want {
					t.Fatalf("indexed edit %d %+v on %q:\ngot  %q\nwant %q", i, c.Range, text, indexed.text, want)
				}
				if fresh := newIndexedText(want); !slices.Equal(indexed.lines, fresh.lines) {
					t.Fatalf("edit %d %+v on %q: line index %v, want %v", i, c.Range, text, indexed.lines, fresh.lines)
				}
				text = want
			}
		})
	}
}

func randPos(r *rand.Rand, text string, enc Encoding) Position {
	lines := refLines(text)
	line := r.IntN(len(lines) + 2)
	width := 2
	if line < len(lines) {
		width += refUnits(lines[line].content, enc)[len(refUnits(lines[line].content, enc))-1].unit
	}
	return Position{Line: line, Character: r.IntN(width + 1)}
}

// The reference implementation: split the text into lines with a regular
// expression, list each line's character boundaries, and pick the last
// boundary at or before the position.

var lineBreak = regexp.MustCompile(`\r\n|\r|\n`)

type refLine struct {
	start   int
	content string
}

func refLines(text string) []refLine {
	var lines []refLine
	start := 0
	for _, m := range lineBreak.FindAllStringIndex(text, -1) {
		lines = append(lines, refLine{start, text[start:m[0]]})
		start = m[1]
	}
	return append(lines, refLine{start, text[start:]})
}

type boundary struct{ unit, byteOff int }

func refUnits(s string, enc Encoding) []boundary {
	b := []boundary{{0, 0}}
	u := 0
	for i, r := range s {
		n := utf8.RuneLen(r)
		if r == utf8.RuneError {
			n = 1
		}
		switch enc {
		case UTF8:
			u += n
		case UTF16:
			u++
			if r > 0xFFFF {
				u++ // a surrogate pair
			}
		case UTF32:
			u++
		}
		b = append(b, boundary{u, i + n})
	}
	return b
}

func refOffset(text string, p Position, enc Encoding) int {
	lines := refLines(text)
	if p.Line >= len(lines) {
		return len(text)
	}
	l := lines[p.Line]
	off := 0
	for _, b := range refUnits(l.content, enc) {
		if b.unit <= p.Character {
			off = b.byteOff
		}
	}
	return l.start + off
}

func refApply(text string, enc Encoding, c Change) string {
	if c.Range == nil {
		return c.Text
	}
	s, e := c.Range.Start, c.Range.End
	if e.Line < s.Line || e.Line == s.Line && e.Character < s.Character {
		s, e = e, s
	}
	so, eo := refOffset(text, s, enc), refOffset(text, e, enc)
	return text[:so] + c.Text + text[eo:]
}
