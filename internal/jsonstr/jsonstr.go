// Package jsonstr decodes JSON strings into Go strings with one
// allocation of at most their encoded size, to the string encoding/json
// makes of them. encoding/json unquotes a string with escapes (any text
// with a line break) into a buffer and then copies that into the string:
// two copies of a document or a tool's output where this makes one.
//
// Decode is for strings read outside encoding/json (a document's text
// cut from an LSP frame, a session record's item): it refuses whatever
// is not a valid JSON string of valid UTF-8, and its caller leaves that
// to encoding/json. Text is for fields encoding/json reads: it has
// checked the string, and Text replaces what it would replace. Append
// goes the other way: it writes a string as encoding/json does.
package jsonstr

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/bits"
	"strings"
	"unicode/utf8"
)

// End returns where the JSON string whose content starts at in[from]
// (just after its opening quote) ends: the index of its closing quote.
// It reports false, with len(in), when the string is not closed.
func End(in []byte, from int) (int, bool) {
	for i := from; ; {
		j := bytes.IndexByte(in[i:], '"')
		if j < 0 {
			return len(in), false
		}
		j += i
		k := j
		for k > from && in[k-1] == '\\' {
			k--
		}
		if (j-k)%2 == 0 {
			return j, true
		}
		i = j + 1
	}
}

// Decode decodes the content of a JSON string (what lies between its
// quotes) as encoding/json does, in one pass and one allocation of at
// most its encoded size. It reports false for what is not valid JSON (a
// control character, an unescaped quote, a bad or cut escape) and for
// invalid UTF-8, which encoding/json would replace: the caller then reads
// the string the ordinary way.
func Decode(content []byte) (string, bool) {
	var b strings.Builder
	b.Grow(len(content))
	run := 0 // content[run:i] is yet to be written
	for i := 0; i < len(content); {
		if i+8 <= len(content) {
			m := special(binary.LittleEndian.Uint64(content[i:]))
			if m == 0 {
				i += 8
				continue
			}
			i += bits.TrailingZeros64(m) >> 3
		}
		switch ch := content[i]; {
		case ch == '\\':
			b.Write(content[run:i])
			n, err := writeEscape(&b, content[i:])
			if err != nil {
				return "", false
			}
			i += n
			run = i
		case ch < ' ' || ch == '"':
			return "", false
		case ch < utf8.RuneSelf:
			i++
		default:
			r, size := utf8.DecodeRune(content[i:])
			if r == utf8.RuneError && size == 1 {
				return "", false
			}
			i += size
		}
	}
	b.Write(content[run:])
	return b.String(), true
}

// special marks, in the high bit of each byte, the bytes of w (eight
// bytes of a string, the first lowest) that Decode must look at: a
// control character, '"', '\\' or a byte of a multi-byte character. The
// lowest mark is exact; marks above it may be false.
func special(w uint64) uint64 {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	quote, backslash := w^('"'*ones), w^('\\'*ones)
	return (w | (w-' '*ones)&^w | (quote-ones)&^quote | (backslash-ones)&^backslash) & highs
}

// Text is a string field decoded with one allocation of at most its
// encoded size. It decodes as encoding/json does: invalid UTF-8 and
// unpaired surrogates become U+FFFD.
type Text string

func (t *Text) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		return nil
	}
	if len(data) < 2 || data[0] != '"' || data[len(data)-1] != '"' {
		return errors.New("text: not a JSON string")
	}
	s, err := decodeChecked(data[1 : len(data)-1])
	*t = Text(s)
	return err
}

// decodeChecked decodes the content of a JSON string that encoding/json
// has already checked, replacing invalid UTF-8 as it does.
func decodeChecked(content []byte) (string, error) {
	var b strings.Builder
	b.Grow(len(content))
	for len(content) > 0 {
		i := bytes.IndexByte(content, '\\')
		if i < 0 {
			i = len(content)
		}
		writeUTF8(&b, content[:i])
		content = content[i:]
		if len(content) == 0 {
			break
		}
		n, err := writeEscape(&b, content)
		if err != nil {
			return "", err
		}
		content = content[n:]
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
