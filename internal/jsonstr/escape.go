package jsonstr

import (
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// writeEscape writes the character of the escape that in starts with (at
// its backslash) and returns the escape's length. As in encoding/json, a
// surrogate that is not the first of a pair becomes U+FFFD.
func writeEscape(b *strings.Builder, in []byte) (int, error) {
	if len(in) < 2 {
		return 0, errors.New("text: a cut escape")
	}
	if c := simpleEscapes[in[1]]; c != 0 {
		b.WriteByte(c)
		return 2, nil
	}
	r, ok := hex4(in)
	if !ok {
		return 0, errors.New("text: a bad escape")
	}
	if !utf16.IsSurrogate(r) {
		b.WriteRune(r)
		return 6, nil
	}
	if r2, ok := hex4(in[6:]); ok {
		if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
			b.WriteRune(d)
			return 12, nil
		}
	}
	b.WriteRune(utf8.RuneError)
	return 6, nil
}

// simpleEscapes maps the letter after a backslash to its character.
var simpleEscapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads a \uXXXX escape at the start of in.
func hex4(in []byte) (rune, bool) {
	if len(in) < 6 || in[0] != '\\' || in[1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range in[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
