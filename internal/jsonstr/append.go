package jsonstr

import "unicode/utf8"

// How Append writes a byte that is not UTF-8.
const (
	// Escaped is what encoding/json writes: the escape \ufffd.
	Escaped = `\ufffd`
	// Replaced is what encoding/json writes for a string it decoded from
	// its own output: the character U+FFFD itself.
	Replaced = "\uFFFD"
)

const hexDigits = "0123456789abcdef"

// Append appends s as a JSON string the way encoding/json's Marshal
// writes it (<, > and & escaped, U+2028 and U+2029 escaped, short escapes
// where JSON has them), a byte that is not UTF-8 as invalid (Escaped or
// Replaced).
func Append(b []byte, s, invalid string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, invalid...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
