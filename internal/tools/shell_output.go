package tools

import (
	"bytes"
	"fmt"
	"strings"
)

// capture keeps the beginning and the end of a stream that may be far too
// long to keep whole: the first and the last limit bytes
// (shellCaptureBytes unless made by newCaptureOf).
type capture struct {
	limit   int
	head    []byte
	tail    []byte // ring buffer once full
	tailPos int
	total   int64
	// newlines counts every "\n" written, so that the number of lines is
	// exact whatever the size.
	newlines int64
	last     byte
}

func newCapture() *capture { return newCaptureOf(shellCaptureBytes) }

// newCaptureOf keeps the first and the last limit bytes.
func newCaptureOf(limit int) *capture { return &capture{limit: limit} }

func (c *capture) Write(p []byte) {
	if len(p) == 0 {
		return
	}
	c.total += int64(len(p))
	c.newlines += int64(bytes.Count(p, newline))
	c.last = p[len(p)-1]
	if room := c.limit - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 {
		if len(c.tail) < c.limit {
			n := min(c.limit-len(c.tail), len(p))
			c.tail = append(c.tail, p[:n]...)
			p = p[n:]
			continue
		}
		n := copy(c.tail[c.tailPos:], p)
		c.tailPos = (c.tailPos + n) % c.limit
		p = p[n:]
	}
}

var newline = []byte{'\n'}

// lines is the exact number of lines written; a last line without a
// newline counts.
func (c *capture) lines() int64 {
	if c.total > 0 && c.last != '\n' {
		return c.newlines + 1
	}
	return c.newlines
}

// whole tells whether every byte written was kept.
func (c *capture) whole() bool {
	return int64(len(c.head)+len(c.tail)) == c.total
}

// ends returns the kept beginning and end of the stream in order: head
// is its first len(head) bytes, tail its last len(tail). When everything
// was kept both are the whole stream.
func (c *capture) ends() (head, tail []byte) {
	if c.whole() {
		all := c.bytes()
		return all, all
	}
	return c.head, c.bytes()[len(c.head):]
}

// bytes returns what was kept, in order.
func (c *capture) bytes() []byte {
	out := append([]byte(nil), c.head...)
	if len(c.tail) < c.limit {
		return append(out, c.tail...)
	}
	out = append(out, c.tail[c.tailPos:]...)
	return append(out, c.tail[:c.tailPos]...)
}

// String is the kept text as valid UTF-8, with a marker where the middle
// was dropped.
func (c *capture) String() string {
	kept := int64(len(c.head) + len(c.tail))
	if kept == c.total {
		return strings.ToValidUTF8(string(c.bytes()), "\uFFFD")
	}
	tail := c.bytes()[len(c.head):]
	return strings.ToValidUTF8(string(c.head), "\uFFFD") +
		fmt.Sprintf("\n[... %d bytes of output not kept ...]\n", c.total-kept) +
		strings.ToValidUTF8(string(tail), "\uFFFD")
}

// streamWriter hands each chunk a command writes to a function.
type streamWriter struct{ write func([]byte) }

func (w *streamWriter) Write(p []byte) (int, error) {
	w.write(p)
	return len(p), nil
}
