package tools

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// capture keeps the beginning and the end of a stream that may be far too
// long to keep whole: the first and the last shellCaptureBytes bytes.
type capture struct {
	head    []byte
	tail    []byte // ring buffer once full
	tailPos int
	total   int64
}

func newCapture() *capture { return &capture{} }

func (c *capture) Write(p []byte) {
	c.total += int64(len(p))
	if room := shellCaptureBytes - len(c.head); room > 0 {
		n := min(room, len(p))
		c.head = append(c.head, p[:n]...)
		p = p[n:]
	}
	for len(p) > 0 {
		if len(c.tail) < shellCaptureBytes {
			n := min(shellCaptureBytes-len(c.tail), len(p))
			c.tail = append(c.tail, p[:n]...)
			p = p[n:]
			continue
		}
		n := copy(c.tail[c.tailPos:], p)
		c.tailPos = (c.tailPos + n) % shellCaptureBytes
		p = p[n:]
	}
}

// bytes returns what was kept, in order.
func (c *capture) bytes() []byte {
	out := append([]byte(nil), c.head...)
	if len(c.tail) < shellCaptureBytes {
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

// clip keeps at most max bytes of s: the start, or the end when fromEnd,
// without splitting a UTF-8 sequence.
func clip(s string, max int, fromEnd bool) string {
	if len(s) <= max {
		return s
	}
	if fromEnd {
		i := len(s) - max
		for i < len(s) && !utf8.RuneStart(s[i]) {
			i++
		}
		return s[i:]
	}
	i := max
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "\n"
}
