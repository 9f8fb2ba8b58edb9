package model

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxEventBytes bounds one server-sent event (its data lines together, or
// one line). A model's delta or finished item is far smaller; a server
// that sends more (or one endless line) fails the attempt instead of
// taking all memory. A variable for tests.
var maxEventBytes = 32 << 20

// errEventTooLarge is an event over maxEventBytes. It is not retried: the
// same server would send the same again.
var errEventTooLarge = errors.New("model stream: an event is larger than 32 MiB")

// sseEvent is one event of a text/event-stream.
type sseEvent struct {
	name string // the event: field, if any
	data []byte // the data: lines, joined with "\n"; valid until the next read
	// unterminated: the stream ended before the blank line that ends
	// the event (or inside its last line), so the event may be cut short.
	unterminated bool
}

// sseReader reads server-sent events (the WHATWG event stream format):
// "field: value" lines, LF or CRLF, an event ending at a blank line;
// data: lines accumulate, event: names the event, lines starting with a
// colon are comments, other fields (id:, retry:) are ignored. Blank lines
// without data dispatch nothing.
type sseReader struct {
	br   *bufio.Reader
	line []byte // a line longer than br's buffer, assembled
	data []byte
	name string
	// events counts the events read; head keeps the first bytes of the
	// stream for an error about a stream that had none.
	events int
	head   []byte
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{br: bufio.NewReaderSize(r, 64<<10)}
}

// next returns the next event, io.EOF at the end of the stream, or the
// error that broke it.
func (s *sseReader) next() (sseEvent, error) {
	s.data, s.name = s.data[:0], ""
	hasData := false
	for {
		line, err := s.readLine()
		if err != nil {
			if err == io.EOF && hasData {
				// The stream ended inside an event: it is dispatched
				// so that a server that leaves out the last blank line
				// still works, marked so that a cut one is not taken
				// for a bad one.
				s.events++
				return sseEvent{name: s.name, data: s.data, unterminated: true}, nil
			}
			return sseEvent{}, err
		}
		if len(line) == 0 {
			if !hasData {
				s.name = ""
				continue
			}
			s.events++
			return sseEvent{name: s.name, data: s.data}, nil
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:]
		}
		switch string(field) {
		case "": // a comment (": keep-alive")
		case "event":
			s.name = string(value)
		case "data":
			if hasData {
				s.data = append(s.data, '\n')
			}
			if len(s.data)+len(value) > maxEventBytes {
				return sseEvent{}, errEventTooLarge
			}
			s.data = append(s.data, value...)
			hasData = true
		}
	}
}

// readLine returns the next line without its line ending; a last line
// without one is returned at the end of the stream.
func (s *sseReader) readLine() ([]byte, error) {
	s.line = s.line[:0]
	for {
		frag, err := s.br.ReadSlice('\n')
		if len(s.head) < 512 {
			s.head = append(s.head, frag[:min(len(frag), 512-len(s.head))]...)
		}
		if len(s.line)+len(frag) > maxEventBytes {
			return nil, errEventTooLarge
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			s.line = append(s.line, frag...)
			continue
		}
		line := frag
		if len(s.line) > 0 {
			s.line = append(s.line, frag...)
			line = s.line
		}
		if err != nil && (err != io.EOF || len(line) == 0) {
			return nil, err
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		line = bytes.TrimSuffix(line, []byte("\r"))
		return line, nil
	}
}
