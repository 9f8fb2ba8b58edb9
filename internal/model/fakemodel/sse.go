package fakemodel

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/agent-ls/agent-ls/internal/jsonstr"
)

// flushSize is how much the writer buffers before writing to the
// connection: events go out in batches, not one write per event.
const flushSize = 32 << 10

// sse writes one server-sent-event stream. Events are appended to a reused
// buffer (no allocation per event) and written in batches; the buffer is
// flushed whenever the stream is about to pause (gate, failure, pace) so
// the client has seen every event before it.
//
// Once the stream stops (a failure, the client gone), every write is a
// no-op, so generators run to their end without checking.
type sse struct {
	w   http.ResponseWriter
	rc  *http.ResponseController
	ctx context.Context
	// serverDone is closed when the server shuts down.
	serverDone <-chan struct{}

	buf     []byte
	events  int
	seq     int64 // sequence_number of the next Responses event
	stopped bool
	abort   bool // reset the connection when done

	failAt int // events before failMode; -1 for none
	mode   FailMode
	gate   *Gate
	pace   time.Duration
}

func newSSE(w http.ResponseWriter, r *http.Request, done <-chan struct{}) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	h.Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, rc: http.NewResponseController(w), ctx: r.Context(), serverDone: done,
		buf: make([]byte, 0, flushSize+4096), failAt: -1}
}

// start sends the headers and applies a failure or gate at event 0.
func (s *sse) start() {
	s.flush()
	s.checkpoint()
}

// open begins a "data:" event; with a Responses event type, also the
// "event:" line and the type and sequence_number fields.
func (s *sse) open(typ string) {
	if s.stopped {
		return
	}
	if s.pace > 0 {
		s.flush()
		if !s.wait(s.pace) {
			s.stopped = true
			return
		}
	}
	if typ == "" {
		s.buf = append(s.buf, "data: "...)
		return
	}
	s.buf = append(s.buf, "event: "...)
	s.buf = append(s.buf, typ...)
	s.buf = append(s.buf, "\ndata: {\"type\":\""...)
	s.buf = append(s.buf, typ...)
	s.buf = append(s.buf, "\",\"sequence_number\":"...)
	s.buf = strconv.AppendInt(s.buf, s.seq, 10)
	s.seq++
}

// str appends a string field.
func (s *sse) str(key, v string) {
	if s.stopped {
		return
	}
	s.key(key)
	s.buf = appendJSONString(s.buf, v)
}

// int appends a number field.
func (s *sse) int(key string, v int) {
	if s.stopped {
		return
	}
	s.key(key)
	s.buf = strconv.AppendInt(s.buf, int64(v), 10)
}

// raw appends a field with JSON v, or, with an empty key, raw bytes.
func (s *sse) raw(key string, v []byte) {
	if s.stopped {
		return
	}
	if key != "" {
		s.key(key)
	}
	s.buf = append(s.buf, v...)
}

// lit appends literal JSON text.
func (s *sse) lit(v string) {
	if s.stopped {
		return
	}
	s.buf = append(s.buf, v...)
}

// quoted appends v as a JSON string.
func (s *sse) quoted(v string) {
	if s.stopped {
		return
	}
	s.buf = appendJSONString(s.buf, v)
}

func (s *sse) key(k string) {
	s.buf = append(s.buf, ",\""...)
	s.buf = append(s.buf, k...)
	s.buf = append(s.buf, "\":"...)
}

// close ends an event; closeObject also closes the JSON object that open
// began.
func (s *sse) closeObject() { s.close("}\n\n") }
func (s *sse) closeEvent()  { s.close("\n\n") }

func (s *sse) close(tail string) {
	if s.stopped {
		return
	}
	s.buf = append(s.buf, tail...)
	s.events++
	if len(s.buf) >= flushSize {
		s.flush()
	}
	s.checkpoint()
}

// checkpoint applies the gate or the failure due after this many events.
func (s *sse) checkpoint() {
	if g := s.gate; g != nil && s.events == g.after && !s.stopped {
		s.flush()
		g.reach()
		select {
		case <-g.release:
		case <-s.ctx.Done():
			s.stopped = true
		case <-s.serverDone:
			s.stopped = true
		}
	}
	if s.failAt != s.events || s.stopped {
		return
	}
	s.flush()
	s.stopped = true
	switch s.mode {
	case Disconnect:
		s.abort = true
	case Stall:
		select {
		case <-s.ctx.Done():
		case <-s.serverDone:
		}
	}
}

// flush writes the buffered events to the client.
func (s *sse) flush() {
	if len(s.buf) > 0 {
		if _, err := s.w.Write(s.buf); err != nil {
			s.stopped = true
		}
		s.buf = s.buf[:0]
	}
	if err := s.rc.Flush(); err != nil {
		s.stopped = true
	}
}

// finish writes what is left.
func (s *sse) finish() {
	if !s.stopped {
		s.flush()
	}
}

// wait sleeps for d unless the client or the server goes away first.
func (s *sse) wait(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-s.ctx.Done():
	case <-s.serverDone:
	}
	return false
}

// appendJSONString appends v as a JSON string, as encoding/json writes
// it.
func appendJSONString(b []byte, v string) []byte { return jsonstr.Append(b, v, jsonstr.Escaped) }
