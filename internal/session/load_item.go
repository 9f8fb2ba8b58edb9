package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/agent-ls/agent-ls/internal/model"
)

// decodeItem reads an item as agent-ls writes it (json.Marshal of a
// model.Item: no spaces, known keys, strings, booleans and lists of
// strings) into it, about three times as fast as encoding/json, which
// checks the whole line first and then finds each field by reflection.
// It reports false for anything else (a key it does not know, an
// action, a null, invalid JSON or UTF-8), which encoding/json then reads
// and judges; it never accepts what encoding/json would refuse.
func decodeItem(b []byte, it *model.Item) bool {
	d := itemDecoder{b: b}
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return d.i == len(b)
	}
	for {
		key, ok := d.key()
		if !ok || !d.byte(':') || !d.field(string(key), it) {
			return false
		}
		if d.byte('}') {
			return d.i == len(b)
		}
		if !d.byte(',') {
			return false
		}
	}
}

// itemDecoder reads b from i on.
type itemDecoder struct {
	b []byte
	i int
}

// byte takes c if it is next.
func (d *itemDecoder) byte(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// field reads the value of key into it.
func (d *itemDecoder) field(key string, it *model.Item) bool {
	var s *string
	switch key {
	case "type":
		v, ok := d.str()
		it.Type = model.ItemType(v)
		return ok
	case "id":
		s = &it.ID
	case "role":
		s = &it.Role
	case "text":
		s = &it.Text
	case "phase":
		s = &it.Phase
	case "callId":
		s = &it.CallID
	case "name":
		s = &it.Name
	case "arguments":
		s = &it.Arguments
	case "input":
		s = &it.Input
	case "output":
		s = &it.Output
	case "encryptedContent":
		s = &it.EncryptedContent
	case "status":
		s = &it.Status
	case "refused":
		return d.boolean(&it.Refused)
	case "images":
		return d.strs(&it.Images)
	case "summary":
		return d.strs(&it.Summary)
	case "reasoningText":
		return d.strs(&it.ReasoningText)
	default:
		return false
	}
	v, ok := d.str()
	*s = v
	return ok
}

func (d *itemDecoder) boolean(v *bool) bool {
	switch {
	case bytes.HasPrefix(d.b[d.i:], []byte("true")):
		*v, d.i = true, d.i+4
	case bytes.HasPrefix(d.b[d.i:], []byte("false")):
		*v, d.i = false, d.i+5
	default:
		return false
	}
	return true
}

// strs reads a list of strings.
func (d *itemDecoder) strs(v *[]string) bool {
	if !d.byte('[') {
		return false
	}
	list := []string{}
	for !d.byte(']') {
		if len(list) > 0 && !d.byte(',') {
			return false
		}
		s, ok := d.str()
		if !ok {
			return false
		}
		list = append(list, s)
	}
	*v = list
	return true
}

// key reads an object's key, which has no escape in what agent-ls
// writes (one that has is no key decodeItem knows).
func (d *itemDecoder) key() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	end := bytes.IndexByte(d.b[d.i:], '"')
	if end < 0 {
		return nil, false
	}
	k := d.b[d.i : d.i+end]
	d.i += end + 1
	return k, bytes.IndexByte(k, '\\') < 0
}

// str reads a string.
func (d *itemDecoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	end := bytes.IndexByte(d.b[start:], '"')
	if end < 0 {
		return "", false
	}
	raw := d.b[start : start+end]
	if bytes.IndexByte(raw, '\\') < 0 {
		d.i = start + end + 1
		return string(raw), plain(raw)
	}
	return d.unescape()
}

// plain reports whether raw, a string's bytes without escapes, is one
// JSON takes as it is: valid UTF-8, no control characters.
func plain(raw []byte) bool {
	for _, c := range raw {
		if c < 0x20 {
			return false
		}
	}
	return utf8.Valid(raw)
}

// unescape reads the rest of a string with escapes, from d.i, into a
// string of the escaped one's length (never shorter than its text).
func (d *itemDecoder) unescape() (string, bool) {
	end := d.i
	for end < len(d.b) && d.b[end] != '"' {
		if d.b[end] == '\\' {
			end++
		}
		end++
	}
	if end >= len(d.b) {
		return "", false
	}
	var out strings.Builder
	out.Grow(end - d.i)
	for d.i < end {
		j := d.i
		for j < end && d.b[j] != '\\' {
			j++
		}
		if !plain(d.b[d.i:j]) {
			return "", false
		}
		out.Write(d.b[d.i:j])
		if d.i = j; j < end && !d.escape(&out) {
			return "", false
		}
	}
	d.i = end + 1
	return out.String(), true
}

// escapes are the one-letter escapes and what they stand for.
var escapes = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// escape reads one escape at d.i (its backslash) onto out, as
// encoding/json does: a lone surrogate becomes U+FFFD.
func (d *itemDecoder) escape(out *strings.Builder) bool {
	if d.i+1 >= len(d.b) {
		return false
	}
	if c := escapes[d.b[d.i+1]]; c != 0 {
		d.i += 2
		out.WriteByte(c)
		return true
	}
	r, ok := d.hex4(d.i)
	if !ok {
		return false
	}
	d.i += 6
	if utf16.IsSurrogate(r) {
		if r2, ok := d.hex4(d.i); ok {
			if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
				d.i += 6
				out.WriteRune(dec)
				return true
			}
		}
		r = utf8.RuneError
	}
	out.WriteRune(r)
	return true
}

// hex4 reads a \uXXXX escape at i.
func (d *itemDecoder) hex4(i int) (rune, bool) {
	if i+6 > len(d.b) || d.b[i] != '\\' || d.b[i+1] != 'u' {
		return 0, false
	}
	var r rune
	for _, c := range d.b[i+2 : i+6] {
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

// readItem reads an item line's item: through decodeItem, or, for what
// it does not take, through encoding/json.
func readItem(b []byte, it *model.Item) error {
	if decodeItem(b, it) {
		return nil
	}
	*it = model.Item{}
	return json.Unmarshal(b, it)
}
