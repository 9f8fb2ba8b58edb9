package mcp

import (
	"bytes"
	"strings"
	"sync"
	"unicode/utf8"
)

// Bounds of the stderr kept of a server.
const (
	stderrLines   = 20
	stderrLineMax = 500 // bytes; a longer line is cut
)

// tail keeps the last lines a stdio server wrote to its stderr, for its
// Status: what a user reads first when a server misbehaves. It never
// blocks the server, whatever it writes.
type tail struct {
	mu      sync.Mutex
	lines   []string
	partial []byte // the line being written
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			t.partial = appendCapped(t.partial, p)
			break
		}
		t.partial = appendCapped(t.partial, p[:i])
		t.push()
		p = p[i+1:]
	}
	return n, nil
}

func appendCapped(dst, p []byte) []byte {
	if room := stderrLineMax - len(dst); room < len(p) {
		p = p[:max(room, 0)]
	}
	return append(dst, p...)
}

// push ends the partial line. Called with t.mu held.
func (t *tail) push() {
	line := strings.TrimRight(strings.ToValidUTF8(string(t.partial), string(utf8.RuneError)), "\r")
	t.partial = t.partial[:0]
	t.lines = append(t.lines, line)
	if len(t.lines) > stderrLines {
		t.lines = append(t.lines[:0], t.lines[len(t.lines)-stderrLines:]...)
	}
}

// Lines returns the kept lines, the one still being written last.
func (t *tail) Lines() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]string(nil), t.lines...)
	if len(t.partial) > 0 {
		out = append(out, strings.ToValidUTF8(string(t.partial), string(utf8.RuneError)))
		if len(out) > stderrLines {
			out = out[1:]
		}
	}
	return out
}
