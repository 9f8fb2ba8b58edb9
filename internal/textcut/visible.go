package textcut

import (
	"strings"
	"unicode/utf8"
)

// Visible returns s with every character that could change how a
// terminal or an editor shows the text around it written as a visible
// escape: the C0 controls but newline and tab (`\r`, `\x1b`), DEL
// (`\x7f`), the C1 controls (`\u009b`), the bidirectional overrides,
// embeddings and isolates (`\u202e`, `\u2066`), the zero-width and
// direction marks (`\u200b`…`\u200f`), and each byte that is not part of
// valid UTF-8 (`\xff`). Text from the model, from the repository or from
// another program goes through it before it reaches a person: raw, an
// escape sequence could clear the screen, rewrite the line an approval
// question stands on, or write the clipboard (OSC 52), and a bidi
// override could show a command other than the one that runs.
//
// Everything else, backslashes included, is kept as it is, so that text
// and code stay readable; the escapes are for the eye, not for parsing
// back. s is returned as it is (no copy) when it has nothing to escape.
func Visible(s string) string { return visible(s, false) }

// VisibleLine is Visible for text shown on one line (a file name, a
// title, a field of a question): newlines and tabs are escaped too, so
// that the text cannot start a line of its own that looks like ours.
func VisibleLine(s string) string { return visible(s, true) }

func visible(s string, line bool) string {
	i := firstHidden(s, line)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	b.WriteString(s[:i])
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if hiddenByte(c, line) {
				writeEscape(&b, rune(c), true)
			} else {
				b.WriteByte(c)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			writeEscape(&b, rune(c), true)
		case hiddenRune(r):
			writeEscape(&b, r, false)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// firstHidden is the index of the first byte of s that Visible escapes,
// or -1.
func firstHidden(s string, line bool) int {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if hiddenByte(c, line) {
				return i
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || hiddenRune(r) {
			return i
		}
		i += n
	}
	return -1
}

func hiddenByte(c byte, line bool) bool {
	switch {
	case c == '\n' || c == '\t':
		return line
	case c < 0x20 || c == 0x7f:
		return true
	}
	return false
}

// hiddenRune reports the non-ASCII characters Visible escapes: C1
// controls, bidi controls, zero-width characters and direction marks.
func hiddenRune(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f: // C1: CSI (U+009B) and OSC (U+009D) among them
		return true
	case r >= 0x200b && r <= 0x200f: // zero-width space, (non-)joiner, LRM, RLM
		return true
	case r >= 0x202a && r <= 0x202e: // LRE, RLE, PDF, LRO, RLO
		return true
	case r >= 0x2066 && r <= 0x2069: // LRI, RLI, FSI, PDI
		return true
	}
	return false
}

const hexDigits = "0123456789abcdef"

// writeEscape writes r as an escape: the usual letter for the common C0
// controls, \xNN for other single bytes (byte: r is a byte, of ASCII or
// of invalid UTF-8), \uNNNN for characters.
func writeEscape(b *strings.Builder, r rune, byteEscape bool) {
	if byteEscape {
		switch r {
		case '\a':
			b.WriteString(`\a`)
		case '\b':
			b.WriteString(`\b`)
		case '\f':
			b.WriteString(`\f`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case '\v':
			b.WriteString(`\v`)
		default:
			b.WriteString(`\x`)
			b.WriteByte(hexDigits[r>>4&0xf])
			b.WriteByte(hexDigits[r&0xf])
		}
		return
	}
	b.WriteString(`\u`)
	for shift := 12; shift >= 0; shift -= 4 {
		b.WriteByte(hexDigits[r>>uint(shift)&0xf])
	}
}
