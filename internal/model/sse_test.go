package model

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
)

// readAll returns the events of stream as "name|data" ("*" marks an
// unterminated one), and the error that ended it (nil for io.EOF).
func readAll(t *testing.T, r io.Reader) ([]string, error) {
	t.Helper()
	s := newSSEReader(r)
	var out []string
	for {
		ev, err := s.next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		e := ev.name + "|" + string(ev.data)
		if ev.unterminated {
			e += "*"
		}
		out = append(out, e)
	}
}

func TestSSEFraming(t *testing.T) {
	tests := []struct {
		name, stream string
		want         []string
	}{
		{"data only", "data: {\"a\":1}\n\n", []string{`|{"a":1}`}},
		{"named", "event: response.created\ndata: {}\n\n", []string{"response.created|{}"}},
		{"no space after colon", "event:x\ndata:{}\n\n", []string{"x|{}"}},
		{"one space taken", "data:  two\n\n", []string{"| two"}},
		{"multi-line data", "data: {\"a\":\ndata: 1}\n\n", []string{"|{\"a\":\n1}"}},
		{"CRLF", "event: e\r\ndata: {}\r\n\r\ndata: 2\r\n\r\n", []string{"e|{}", "|2"}},
		{"comments and other fields", ": keep-alive\n\nid: 7\nretry: 100\n: hi\ndata: x\n\n", []string{"|x"}},
		{"blank lines without data", "\n\n\nevent: lost\n\ndata: x\n\n", []string{"|x"}},
		{"field without colon", "data\n\n", []string{"|"}},
		{"colon in value", "data: a:b: c\n\n", []string{"|a:b: c"}},
		{"last event without blank line", "data: 1\n\ndata: 2\n", []string{"|1", "|2*"}},
		{"last line without newline", "data: 1\n\ndata: 2", []string{"|1", "|2*"}},
		{"done", "data: [DONE]\n\n", []string{"|[DONE]"}},
		{"empty stream", "", nil},
		{"only comments", ": a\n: b\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAll(t, strings.NewReader(tt.stream))
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(got, "\n---\n") != strings.Join(tt.want, "\n---\n") {
				t.Errorf("events %q, want %q", got, tt.want)
			}
		})
	}
}

// A 10 MB delta, split across many reads, arrives whole.
func TestSSEHugeEvent(t *testing.T) {
	big := strings.Repeat("x", 10<<20)
	stream := "data: {\"delta\":\"" + big + "\"}\n\ndata: after\n\n"
	got, err := readAll(t, io.MultiReader(strings.NewReader(stream[:100]), strings.NewReader(stream[100:])))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0] != "|{\"delta\":\""+big+"\"}" || got[1] != "|after" {
		t.Errorf("%d events, first %d bytes", len(got), len(got[0]))
	}
}

// endless is a line that never ends.
type endless struct{ n int64 }

func (e *endless) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	e.n += int64(len(p))
	return len(p), nil
}

// One endless line, or endless data lines of one event, fail once past
// the cap, without reading (or keeping) much more than it.
func TestSSEEndlessEvent(t *testing.T) {
	defer func(n int) { maxEventBytes = n }(maxEventBytes)
	maxEventBytes = 1 << 20
	for name, r := range map[string]*endless{"line": {}, "event": nil} {
		t.Run(name, func(t *testing.T) {
			var src io.Reader = io.MultiReader(strings.NewReader("data: "), r)
			var counted *endless
			if r == nil {
				counted = &endless{}
				src = io.MultiReader(strings.NewReader("data: x"), &lines{counted})
			} else {
				counted = r
			}
			_, err := readAll(t, src)
			if !errors.Is(err, errEventTooLarge) {
				t.Fatalf("error %v, want errEventTooLarge", err)
			}
			// Data lines of one byte take 8 bytes on the wire.
			if counted.n > int64(8*maxEventBytes+64<<10) {
				t.Errorf("read %d bytes for a cap of %d", counted.n, maxEventBytes)
			}
		})
	}
}

// lines is an endless run of short data lines.
type lines struct{ e *endless }

func (l *lines) Read(p []byte) (int, error) {
	n := 0
	for n+8 <= len(p) {
		n += copy(p[n:], "\ndata: y")
	}
	l.e.n += int64(n)
	return n, nil
}

// A read error ends the stream with it; a cut inside a line at the end of
// the stream is an unterminated event.
func TestSSEBrokenStream(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(strings.NewReader("data: 1\n\ndata: {\"a\""), &failing{boom})
	got, err := readAll(t, r)
	if !errors.Is(err, boom) || len(got) != 1 {
		t.Errorf("events %q, error %v", got, err)
	}
}

type failing struct{ err error }

func (f *failing) Read([]byte) (int, error) { return 0, f.err }

func TestSSEHeadOfNonStream(t *testing.T) {
	s := newSSEReader(bytes.NewReader([]byte("<html>\n<body>Sign in</body>\n" + strings.Repeat("x", 2000))))
	if _, err := s.next(); err != io.EOF {
		t.Fatalf("error %v, want io.EOF", err)
	}
	if s.events != 0 || !strings.HasPrefix(string(s.head), "<html>\n<body>Sign in") || len(s.head) != 512 {
		t.Errorf("events %d, head %d bytes %q", s.events, len(s.head), s.head)
	}
}
