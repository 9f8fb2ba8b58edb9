package session

import (
	"bytes"
	"encoding/json"

	"github.com/agent-ls/agent-ls/internal/jsonstr"
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

// str reads a string: its content through jsonstr.Decode, which refuses
// what encoding/json would refuse or replace.
func (d *itemDecoder) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	end, ok := jsonstr.End(d.b, d.i)
	if !ok {
		return "", false
	}
	s, ok := jsonstr.Decode(d.b[d.i:end])
	d.i = end + 1
	return s, ok
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
