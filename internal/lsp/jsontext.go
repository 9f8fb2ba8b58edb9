package lsp

import (
	"bytes"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonText is a JSON string decoded with one allocation of at most its
// encoded size: encoding/json unquotes a string with escapes (any text
// with a line break) into a buffer and then copies that into the string,
// two copies of a document where this makes one. It decodes as
// encoding/json does: invalid UTF-8 and unpaired surrogates become U+FFFD.
type jsonText string

func (t *jsonText) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return errors.New("text: not a JSON string")
	}
	s, err := unquote(data[1 : len(data)-1])
	*t = jsonText(s)
	return err
}

// unquote decodes the inside of a JSON string that encoding/json has
// already checked.
func unquote(in []byte) (string, error) {
	var b strings.Builder
	b.Grow(len(in))
	for len(in) > 0 {
		i := bytes.IndexByte(in, '\\')
		if i < 0 {
			i = len(in)
		}
		writeUTF8(&b, in[:i])
		in = in[i:]
		if len(in) == 0 {
			break
		}
		n, err := writeEscape(&b, in)
		if err != nil {
			return "", err
		}
		in = in[n:]
	}
	return b.String(), nil
}

// writeUTF8 writes chunk, each byte of invalid UTF-8 as U+FFFD.
func writeUTF8(b *strings.Builder, chunk []byte) {
	for len(chunk) > 0 {
		if utf8.Valid(chunk) {
			b.Write(chunk)
			return
		}
		r, size := utf8.DecodeRune(chunk)
		b.WriteRune(r) // utf8.RuneError for an invalid byte
		chunk = chunk[size:]
	}
}

// writeEscape writes the character of the escape that in starts with and
// returns its length.
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
