package lspframe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

func TestReadHeader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		in     string
		length int
		err    error // nil: the length is read
	}{
		{"plain", "Content-Length: 12\r\n\r\n", 12, nil},
		{"any case, spaces", "content-LENGTH :  7 \r\n\r\n", 7, nil},
		{"bare newlines", "Content-Length: 3\n\n", 3, nil},
		{"other headers skipped", "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\nContent-Length: 5\r\n\r\n", 5, nil},
		{"zero", "Content-Length: 0\r\n\r\n", 0, nil},
		{"no length", "Content-Type: x\r\n\r\n", 0, ErrBadHeader},
		{"not a number", "Content-Length: abc\r\n\r\n", 0, ErrBadHeader},
		{"negative", "Content-Length: -1\r\n\r\n", 0, ErrBadHeader},
		{"too large", "Content-Length: 99999999999999\r\n\r\n", 0, ErrBadHeader},
		{"no colon", "{\"jsonrpc\":\"2.0\"}\r\n\r\n", 0, ErrBadHeader},
		{"nothing", "", 0, io.EOF},
		{"cut in a header", "Content-Length: 5\r\n", 0, io.ErrUnexpectedEOF},
		{"cut in a line", "Content-Len", 0, io.ErrUnexpectedEOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			length, n, err := ReadHeader(bufio.NewReader(strings.NewReader(tc.in)))
			if !errors.Is(err, tc.err) || (tc.err == nil && err != nil) {
				t.Fatalf("err = %v, want %v", err, tc.err)
			}
			if tc.err != nil {
				return
			}
			if length != tc.length || n != len(tc.in) {
				t.Errorf("length %d after %d bytes, want %d after %d", length, n, tc.length, len(tc.in))
			}
		})
	}
}

// A header line longer than the reader's buffer is a bad header, not a
// growing allocation.
func TestReadHeaderLongLine(t *testing.T) {
	in := "X-Junk: " + strings.Repeat("a", 100) + "\r\nContent-Length: 1\r\n\r\nx"
	if _, _, err := ReadHeader(bufio.NewReaderSize(strings.NewReader(in), 16)); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("err = %v, want ErrBadHeader", err)
	}
}

func TestWriteRead(t *testing.T) {
	var buf bytes.Buffer
	bodies := []string{`{"jsonrpc":"2.0","method":"initialized","params":{}}`, "", "日本\r\n\r\nContent-Length: 3\r\n"}
	for _, b := range bodies {
		if err := Write(&buf, []byte(b)); err != nil {
			t.Fatal(err)
		}
	}
	if !strings.HasPrefix(buf.String(), "Content-Length: 52\r\n\r\n{") {
		t.Errorf("frame starts %q", buf.String()[:30])
	}
	r := bufio.NewReader(&buf)
	for _, want := range bodies {
		got, err := Read(r)
		if err != nil || string(got) != want {
			t.Fatalf("Read = %q, %v; want %q", got, err, want)
		}
	}
	if _, err := Read(r); err != io.EOF {
		t.Errorf("Read at the end = %v, want io.EOF", err)
	}
}

func TestReadShortBody(t *testing.T) {
	r := bufio.NewReader(strings.NewReader("Content-Length: 10\r\n\r\n{}"))
	if _, err := Read(r); err != io.ErrUnexpectedEOF {
		t.Fatalf("Read = %v, want io.ErrUnexpectedEOF", err)
	}
}

// After a bad header, Resync finds the next frame even when garbage holds
// bytes that start the marker.
func TestResync(t *testing.T) {
	in := "Content-Length: abc\r\n\r\n{\"x\":1}CCContent-Type: x\r\nContent-Length: 2\r\n\r\n{}"
	r := bufio.NewReader(strings.NewReader(in))
	if _, _, err := ReadHeader(r); !errors.Is(err, ErrBadHeader) {
		t.Fatalf("first header: %v", err)
	}
	if err := Resync(r); err != nil {
		t.Fatal(err)
	}
	body, err := Read(r)
	if err != nil || string(body) != "{}" {
		t.Fatalf("after resync Read = %q, %v", body, err)
	}
	if err := Resync(bufio.NewReader(strings.NewReader("garbage without a frame"))); err != io.EOF {
		t.Errorf("Resync without a next frame = %v, want io.EOF", err)
	}
}

func TestWriter(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	big := bytes.Repeat([]byte("x"), 2*keepBuffer)
	for _, body := range [][]byte{[]byte(`{"a":1}`), nil, big, []byte(`{"b":2}`)} {
		n, err := w.WriteFrame(body)
		if err != nil || int(n) != len(fmt.Sprintf("Content-Length: %d\r\n\r\n", len(body)))+len(body) {
			t.Fatalf("WriteFrame of %d bytes: %d, %v", len(body), n, err)
		}
		if cap(w.buf) > keepBuffer {
			t.Errorf("after a frame of %d bytes the writer keeps a buffer of %d", len(body), cap(w.buf))
		}
	}
	n, err := w.Compose(func(b []byte) []byte { return append(b, `{"c":3}`...) })
	if err != nil || n != 28 {
		t.Fatalf("Compose: %d, %v", n, err)
	}
	r := bufio.NewReader(&out)
	for _, want := range []string{`{"a":1}`, "", string(big), `{"b":2}`, `{"c":3}`} {
		body, err := Read(r)
		if err != nil || string(body) != want {
			t.Fatalf("read %d bytes (%v), want %d", len(body), err, len(want))
		}
	}
}
