package lsp

import (
	"bytes"
	"unicode/utf8"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/jsonstr"
)

// Document texts are read in one pass.
//
// A didOpen or a whole-document didChange is nearly all text. Read the
// ordinary way, each byte of it would be scanned four times (the
// screening, the JSON-RPC decoding, encoding/json's check and its
// decoding) and copied twice. Instead the stream cuts the texts out of
// such a frame as it reads it: each is decoded once, into the string the
// store keeps, and replaced in the frame by "". The rest of the message,
// a few hundred bytes, takes the ordinary path (screen, check, the
// connection, textSync), and textSync takes the texts from docTexts where
// it decodes "".
//
// Only frames of the shape editors send are cut: one object whose
// members are jsonrpc, method and params, each once, the method didOpen
// or didChange, the texts valid JSON strings of valid UTF-8 under keys
// spelt exactly and given once. Any other frame is read the ordinary way,
// so whatever is wrong with it is answered as it always was.

// cutMin is the size from which a frame's texts are cut: below it the
// ordinary path costs little.
const cutMin = 1 << 10

// maxCutDepth bounds the nesting the cutter follows; deeper frames are
// read the ordinary way.
const maxCutDepth = 64

// docTexts are the texts cut out of the frame the stream returned last.
// The stream fills them on the read loop, and textSync, which handles a
// document notification on the read loop before the next read, takes
// them.
type docTexts struct {
	cut     bool      // the frame returned last had its texts cut
	open    cutText   // params.textDocument.text
	changes []cutText // params.contentChanges[i].text
}

// cutText is one text cut out of a frame.
type cutText struct {
	text string
	ok   bool // the frame holds "" in its place
}

// reset forgets the texts (and lets them go: a closed document's text
// must not stay referenced here).
func (t *docTexts) reset() {
	t.cut = false
	t.open = cutText{}
	clear(t.changes)
	t.changes = t.changes[:0]
}

// takeOpen returns the text of the didOpen being handled, if it was cut.
func (t *docTexts) takeOpen() (string, bool) {
	if !t.cut {
		return "", false
	}
	open := t.open
	t.reset()
	return open.text, open.ok
}

// takeChanges calls set with each text of the didChange being handled
// that was cut, i the change's index (of n).
func (t *docTexts) takeChanges(n int, set func(i int, text string)) {
	if !t.cut {
		return
	}
	for i, c := range t.changes[:min(n, len(t.changes))] {
		if c.ok {
			set(i, c.text)
		}
	}
	t.reset()
}

// span is a value's place in a frame: [start, end).
type span struct{ start, end int }

// textCutter finds and decodes the texts of one frame at a time.
type textCutter struct {
	texts *docTexts
	in    []byte
	pos   int
	spans []span // the texts cut, in order
}

// cut cuts the texts out of body, in place, and returns what is left; ok
// is false, and body untouched, when body is not a frame it cuts.
func (c *textCutter) cut(body []byte) (rest []byte, ok bool) {
	c.texts.reset()
	c.in, c.pos, c.spans = body, 0, c.spans[:0]
	defer func() { c.in = nil }()
	method, ok := c.message()
	if !ok || len(c.spans) == 0 ||
		(method != protocol.MethodTextDocumentDidOpen && method != protocol.MethodTextDocumentDidChange) {
		c.texts.reset()
		return body, false
	}
	c.texts.cut = true
	w := c.spans[0].start
	for i, sp := range c.spans {
		w += copy(body[w:], `""`)
		next := len(body)
		if i+1 < len(c.spans) {
			next = c.spans[i+1].start
		}
		w += copy(body[w:], body[sp.end:next])
	}
	return body[:w], true
}

// message reads the frame's object: jsonrpc, method and params, each once.
func (c *textCutter) message() (method string, ok bool) {
	var seen [3]bool
	c.space()
	ok = c.members(func(key []byte) bool {
		var i int
		switch string(key) {
		case "jsonrpc":
			i = 0
		case "method":
			i = 1
			m, ok := c.plainString()
			if !ok || m == "" {
				return false // not a method whose texts are cut
			}
			method = m
		case "params":
			i = 2
		default:
			return false
		}
		if seen[i] {
			return false
		}
		seen[i] = true
		switch i {
		case 0:
			return c.skip(1)
		case 2:
			return c.params()
		}
		return true
	})
	c.space()
	return method, ok && c.pos == len(c.in)
}

// params reads params, cutting params.textDocument.text (didOpen) and
// params.contentChanges[i].text (didChange).
func (c *textCutter) params() bool {
	if c.peek() != '{' {
		return c.skip(1)
	}
	var doc, changes bool
	return c.members(func(key []byte) bool {
		switch {
		case string(key) == "textDocument":
			if doc {
				return false
			}
			doc = true
			return c.textDocument()
		case string(key) == "contentChanges":
			if changes {
				return false
			}
			changes = true
			return c.contentChanges()
		case askew(key, "textDocument") || askew(key, "contentChanges"):
			return false
		}
		return c.skip(2)
	})
}

// textDocument reads params.textDocument.
func (c *textCutter) textDocument() bool {
	if c.peek() != '{' {
		return c.skip(2)
	}
	done := false
	return c.members(func(key []byte) bool {
		switch {
		case string(key) == "text":
			if done {
				return false
			}
			done = true
			return c.text(&c.texts.open)
		case askew(key, "text"):
			return false
		}
		return c.skip(3)
	})
}

// contentChanges reads params.contentChanges, one text for each change.
func (c *textCutter) contentChanges() bool {
	if c.peek() != '[' {
		return c.skip(2)
	}
	return c.elements(func() bool {
		c.texts.changes = append(c.texts.changes, cutText{})
		if c.peek() != '{' {
			return c.skip(3)
		}
		i := len(c.texts.changes) - 1
		done := false
		return c.members(func(key []byte) bool {
			switch {
			case string(key) == "text":
				if done {
					return false
				}
				done = true
				return c.text(&c.texts.changes[i])
			case askew(key, "text"):
				return false
			}
			return c.skip(4)
		})
	})
}

// text cuts the string value at the cursor into dst. A value that is not
// a string is left to the ordinary decoding.
func (c *textCutter) text(dst *cutText) bool {
	if c.peek() != '"' {
		return c.skip(4)
	}
	end, ok := jsonstr.End(c.in, c.pos+1)
	if !ok {
		return false
	}
	s, ok := jsonstr.Decode(c.in[c.pos+1 : end])
	if !ok {
		return false
	}
	*dst = cutText{text: s, ok: true}
	c.spans = append(c.spans, span{c.pos, end + 1})
	c.pos = end + 1
	return true
}

// askew reports whether key is not want but may be read as want by
// encoding/json, which matches keys without regard to case (and folds
// some non-ASCII letters into ASCII ones).
func askew(key []byte, want string) bool {
	if string(key) == want {
		return false
	}
	for _, b := range key {
		if b >= utf8.RuneSelf {
			return true
		}
	}
	return bytes.EqualFold(key, []byte(want))
}

// members reads an object, calling member with each key, the cursor on
// its value; member reads the value. Keys with escapes are not read.
func (c *textCutter) members(member func(key []byte) bool) bool {
	if c.peek() != '{' {
		return false
	}
	c.pos++
	if c.space(); c.peek() == '}' {
		c.pos++
		return true
	}
	for {
		c.space()
		if c.peek() != '"' {
			return false
		}
		end := bytes.IndexByte(c.in[c.pos+1:], '"')
		if end < 0 {
			return false
		}
		key := c.in[c.pos+1 : c.pos+1+end]
		if bytes.IndexByte(key, '\\') >= 0 {
			return false
		}
		c.pos += end + 2
		if c.space(); c.peek() != ':' {
			return false
		}
		c.pos++
		if c.space(); !member(key) {
			return false
		}
		if done, ok := c.next('}'); !ok || done {
			return ok
		}
	}
}

// elements reads an array, calling element with the cursor on each.
func (c *textCutter) elements(element func() bool) bool {
	c.pos++ // '['
	if c.space(); c.peek() == ']' {
		c.pos++
		return true
	}
	for {
		if c.space(); !element() {
			return false
		}
		if done, ok := c.next(']'); !ok || done {
			return ok
		}
	}
}

// next reads what follows a member or an element: a comma, or close.
func (c *textCutter) next(close byte) (done, ok bool) {
	c.space()
	switch c.peek() {
	case ',':
		c.pos++
		return false, true
	case close:
		c.pos++
		return true, true
	}
	return false, false
}

// skip passes over the value at the cursor without decoding it: the
// ordinary decoding checks it in what is left of the frame.
func (c *textCutter) skip(depth int) bool {
	if depth > maxCutDepth {
		return false
	}
	switch c.peek() {
	case '"':
		end, ok := jsonstr.End(c.in, c.pos+1)
		c.pos = end + 1
		return ok
	case '{':
		return c.members(func([]byte) bool { return c.skip(depth + 1) })
	case '[':
		return c.elements(func() bool { return c.skip(depth + 1) })
	}
	start := c.pos
	for c.pos < len(c.in) && scalarByte[c.in[c.pos]] {
		c.pos++
	}
	return c.pos > start
}

// plainString reads a string without escapes.
func (c *textCutter) plainString() (string, bool) {
	if c.peek() != '"' {
		return "", false
	}
	end := bytes.IndexByte(c.in[c.pos+1:], '"')
	if end < 0 {
		return "", false
	}
	s := c.in[c.pos+1 : c.pos+1+end]
	if bytes.IndexByte(s, '\\') >= 0 {
		return "", false
	}
	c.pos += end + 2
	return methodName(s), true
}

// methodName returns the method without allocating for those the cutter
// takes.
func methodName(b []byte) string {
	switch string(b) {
	case protocol.MethodTextDocumentDidOpen:
		return protocol.MethodTextDocumentDidOpen
	case protocol.MethodTextDocumentDidChange:
		return protocol.MethodTextDocumentDidChange
	}
	return ""
}

func (c *textCutter) peek() byte {
	if c.pos < len(c.in) {
		return c.in[c.pos]
	}
	return 0
}

func (c *textCutter) space() {
	for c.pos < len(c.in) {
		switch c.in[c.pos] {
		case ' ', '\t', '\r', '\n':
			c.pos++
		default:
			return
		}
	}
}

// scalarByte are the bytes of numbers, true, false and null (and more:
// the ordinary decoding judges them).
var scalarByte = func() (t [256]bool) {
	for _, b := range []byte("0123456789+-.eEtrufalsn") {
		t[b] = true
	}
	return t
}()
