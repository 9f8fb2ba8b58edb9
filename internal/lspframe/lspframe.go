// Package lspframe is the LSP base protocol's framing: a header block that
// carries Content-Length, a blank line, then that many bytes of body. The
// server's connection (lsp), the end-to-end tests and the benchmarks that
// talk to the binary over raw stdio all read frames with it, so a header
// is parsed one way everywhere.
//
// Reading is tolerant as editors expect: header names are matched without
// regard to case, other headers (Content-Type) are skipped, and space
// around a value is ignored. A header block that cannot be used is an
// error wrapping ErrBadHeader, after which Resync finds the next frame.
package lspframe

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// MaxContentLength bounds one message body, as jsonrpc2's own framing
// does: a larger Content-Length is a bad header, not an allocation.
const MaxContentLength = 1 << 30

// ErrBadHeader marks a header block the reader could not use.
var ErrBadHeader = errors.New("invalid message header")

// marker starts every header block agent-ls and the editors write.
const marker = "Content-Length:"

// ReadHeader reads header lines up to the blank line and returns the
// Content-Length and the number of bytes read. At the end of the input
// before any byte of a header it returns io.EOF; within one,
// io.ErrUnexpectedEOF.
func ReadHeader(r *bufio.Reader) (length, n int, err error) {
	length = -1
	for {
		line, err := r.ReadSlice('\n')
		n += len(line)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return 0, n, fmt.Errorf("%w: header line too long", ErrBadHeader)
		case errors.Is(err, io.EOF) && n == 0:
			return 0, 0, io.EOF
		case errors.Is(err, io.EOF):
			return 0, n, io.ErrUnexpectedEOF
		case err != nil:
			return 0, n, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) == 0 {
			if length < 0 {
				return 0, n, fmt.Errorf("%w: no Content-Length", ErrBadHeader)
			}
			return length, n, nil
		}
		name, value, ok := bytes.Cut(line, []byte(":"))
		if !ok {
			return 0, n, fmt.Errorf("%w: %q", ErrBadHeader, textcut.Cut(string(line), 80))
		}
		if !bytes.EqualFold(bytes.TrimSpace(name), []byte("Content-Length")) {
			continue // Content-Type and anything else
		}
		v, err := strconv.Atoi(string(bytes.TrimSpace(value)))
		if err != nil || v < 0 || v > MaxContentLength {
			return 0, n, fmt.Errorf("%w: Content-Length %q", ErrBadHeader, textcut.Cut(string(value), 40))
		}
		length = v
	}
}

// Read reads one frame and returns its body, in a new slice.
func Read(r *bufio.Reader) ([]byte, error) {
	length, _, err := ReadHeader(r)
	if err != nil {
		return nil, err
	}
	body := make([]byte, length)
	if _, err := io.ReadFull(r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return body, nil
}

// Resync skips input up to the next "Content-Length:" and leaves it
// unread, so that reading resumes at the next frame after one whose
// extent is unknown (a bad header). It returns the reader's error (io.EOF
// when the peer is gone) if no such frame comes.
func Resync(r *bufio.Reader) error {
	for {
		peek, err := r.Peek(len(marker))
		if err != nil {
			return err
		}
		if string(peek) == marker {
			return nil
		}
		// Skip to the next byte that could start the marker.
		r.Discard(1)
		rest, _ := r.Peek(r.Buffered())
		if i := bytes.IndexByte(rest, marker[0]); i >= 0 {
			r.Discard(i)
		} else {
			r.Discard(len(rest))
		}
	}
}

// Write writes body as one frame: the Content-Length header, the blank
// line, the body.
func Write(w io.Writer, body []byte) error {
	frame := make([]byte, 0, len(marker)+24+len(body))
	frame = append(frame, marker...)
	frame = append(frame, ' ')
	frame = strconv.AppendInt(frame, int64(len(body)), 10)
	frame = append(frame, "\r\n\r\n"...)
	frame = append(frame, body...)
	_, err := w.Write(frame)
	return err
}

// keepBuffer is the largest frame buffer a Writer keeps for the next
// frame.
const keepBuffer = 1 << 20

// Writer writes whole frames, each with one Write, and is safe for
// concurrent use. It reuses one buffer from frame to frame, but not the
// buffer of a frame over a megabyte: one large message (an edit of a
// large document) does not keep its size for the rest of the connection,
// as jsonrpc2's header stream would.
type Writer struct {
	mu  sync.Mutex
	w   io.Writer
	buf []byte
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// WriteFrame writes body as one frame and returns the bytes written.
func (w *Writer) WriteFrame(body []byte) (int64, error) {
	return w.Compose(func(buf []byte) []byte { return append(buf, body...) })
}

// Compose writes one frame whose body appendBody appends to the buffer it
// is given, so that an encoder writes straight into the frame.
func (w *Writer) Compose(appendBody func(buf []byte) []byte) (int64, error) {
	const reserve = len(marker) + 24 // the header: " ", up to 19 digits, "\r\n\r\n"
	w.mu.Lock()
	defer w.mu.Unlock()
	buf := w.buf[:0]
	if cap(buf) < reserve {
		buf = make([]byte, reserve, 4<<10)
	}
	buf = appendBody(buf[:reserve])
	var space [reserve]byte
	header := append(append(space[:0], marker...), ' ')
	header = strconv.AppendInt(header, int64(len(buf)-reserve), 10)
	header = append(header, "\r\n\r\n"...)
	start := reserve - len(header)
	copy(buf[start:], header)
	n, err := w.w.Write(buf[start:])
	if cap(buf) <= keepBuffer {
		w.buf = buf[:0]
	} else {
		w.buf = nil
	}
	return int64(n), err
}
