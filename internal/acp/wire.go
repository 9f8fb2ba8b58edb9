package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"sync"
)

// maxMessage bounds one inbound message. The SDK's reader gives up on the
// whole connection past 10 MiB; a message over this bound is answered
// with an error and skipped instead.
const maxMessage = 8 << 20

// wire sits between stdio and the SDK's connection. Inbound, it answers
// what JSON-RPC 2.0 says must be answered and the SDK only logs: a line
// that is not JSON (-32700, id null), a batch (-32600: ACP has none), an
// id that is an object, an array or a boolean (-32600) and a message too
// large; it tells the server of an initialize request as it reads it
// (onInitialize). The rest goes through untouched. Outbound, it writes
// each message whole under one lock, gives a new file's diff blocks
// their "oldText": null (see nullOldText), and runs what waits for an
// answer to be out (see afterAnswer and afterAnswerTo).
//
// The SDK runs the requests it reads concurrently, each on its own
// goroutine, and writes each answer when its handler returns: it orders
// nothing between a request's answer and what other goroutines write.
// The hooks run by Write are how agent-ls orders what must be: a
// session/new behind initialize waits until initialize's answer is being
// written, and a new session's first updates are queued as its answer is.
type wire struct {
	mu  sync.Mutex
	out io.Writer
	log *slog.Logger
	// after runs once a line it matches has been written.
	after []afterLine
	// onInitialize is told the id of each initialize request as it is
	// read: in wire order, before the SDK sees it and before the lines
	// after it are read.
	onInitialize func(id json.RawMessage)
	// held counts the holds (see hold); gathered is what they keep.
	held     int
	gathered []byte
}

// afterLine waits for a line holding marker or, without a marker, for
// the answer (a result or an error) to the request whose id is id.
type afterLine struct {
	marker []byte
	id     any
	run    func()
}

// matches reports whether the line p, with answerID its id if it is an
// answer (decoded only when some hook waits for an answer), is the one a
// waits for.
func (a afterLine) matches(p []byte, answerID func() (any, bool)) bool {
	if a.marker != nil {
		return bytes.Contains(p, a.marker)
	}
	id, ok := answerID()
	return ok && id == a.id
}

// Write writes one message (the SDK writes each in one call). What waits
// for the message runs just before it is written, under the lock every
// message is written under: what it queues can only be written after the
// message, and is queued before anything that a client's answer to the
// message makes agent-ls queue (run after the write, a prompt sent at once
// on a session/new answer could have its updates queued before the
// session's available commands).
func (w *wire) Write(p []byte) (int, error) {
	size := len(p)
	p = scopeElicitation(nullOldText(p))
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.after) > 0 {
		answerID := sync.OnceValues(func() (any, bool) { return answerIDOf(p) })
		kept := w.after[:0]
		for _, a := range w.after {
			if a.matches(p, answerID) {
				a.run()
			} else {
				kept = append(kept, a)
			}
		}
		w.after = kept
	}
	if w.held > 0 {
		// Gathered: written in chunks, or when the hold ends.
		w.gathered = append(w.gathered, p...)
		if len(w.gathered) < gatherChunk {
			return size, nil
		}
		p, w.gathered = w.gathered, w.gathered[:0]
	}
	n, err := w.out.Write(p)
	if err == nil {
		n = size
	}
	return n, err
}

// gatherChunk is how much a hold gathers before it writes.
const gatherChunk = 64 << 10

// hold gathers the messages written until release, in order, and writes
// them in chunks: a session/load of a long session replays thousands of
// updates, a system call each otherwise.
func (w *wire) hold() {
	if w == nil {
		return
	}
	w.mu.Lock()
	w.held++
	w.mu.Unlock()
}

// release ends a hold; the last one writes what is gathered.
func (w *wire) release() {
	if w == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held--; w.held > 0 || len(w.gathered) == 0 {
		return
	}
	if _, err := w.out.Write(w.gathered); err != nil {
		w.log.Debug("acp: gathered messages not written", "err", err)
	}
	w.gathered = nil
}

// afterAnswer runs run as a result naming sessionID goes out: the answer
// to session/new, which clients must have before any notification about
// the session (JetBrains hangs otherwise). run is called from the writer,
// with its lock held, so it must only queue (the outbox), never write.
func (w *wire) afterAnswer(sessionID string, run func()) {
	marker, _ := json.Marshal(map[string]string{"sessionId": sessionID})
	marker = bytes.TrimSuffix(bytes.TrimPrefix(marker, []byte("{")), []byte("}"))
	w.mu.Lock()
	w.after = append(w.after, afterLine{marker: marker, run: run})
	w.mu.Unlock()
}

// afterAnswerTo runs run as the answer to the client's request id goes
// out, whether a result or an error; like afterAnswer's, run must only
// queue or signal.
func (w *wire) afterAnswerTo(id json.RawMessage, run func()) {
	key, ok := idKey(id)
	if !ok {
		return
	}
	w.mu.Lock()
	w.after = append(w.after, afterLine{id: key, run: run})
	w.mu.Unlock()
}

// answerIDOf returns the id of the message p if it is an answer (an id
// and no method), as idKey makes it comparable.
func answerIDOf(p []byte) (any, bool) {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if json.Unmarshal(p, &m) != nil || m.Method != "" {
		return nil, false
	}
	return idKey(m.ID)
}

// idKey is a JSON-RPC id as a comparable value: the SDK answers with the
// id it read, a string perhaps written differently (HTML characters
// escaped) but the same string, a number as it was written (so a number
// is kept as its text: 1e400 is an id too, though no float64).
func idKey(id json.RawMessage) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(id))
	d.UseNumber()
	var v any
	if len(id) == 0 || d.Decode(&v) != nil {
		return nil, false
	}
	switch v.(type) {
	case string, json.Number:
		return v, true
	}
	return nil, false
}

func (w *wire) writeError(code int, msg string) {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": code, "message": msg}})
	w.Write(append(b, '\n'))
}

// reader returns what the SDK reads: the lines of in that check lets
// through, each ending in a newline. It reads in on the SDK's own reading
// goroutine, so a message reaches the SDK without a hand-over to another
// goroutine on the way; it reads nothing before start is closed.
func (w *wire) reader(in io.Reader, start <-chan struct{}) io.Reader {
	return &lineReader{w: w, r: bufio.NewReaderSize(in, 64<<10), start: start}
}

type lineReader struct {
	w     *wire
	r     *bufio.Reader
	start <-chan struct{}
	line  []byte // the line being read out
	off   int
	err   error // of in, once its lines are out
}

func (l *lineReader) Read(p []byte) (int, error) {
	if l.start != nil {
		<-l.start
		l.start = nil
	}
	for l.off >= len(l.line) {
		if l.err != nil {
			return 0, l.err
		}
		l.line, l.err = l.w.next(l.r, l.line[:0])
		l.off = 0
	}
	n := copy(p, l.line[l.off:])
	l.off += n
	return n, nil
}

// next reads one line of r into line and returns it if it goes on to
// the SDK, with its newline, or empty if it was answered here. The error
// is r's at its end (the line before it is still returned).
func (w *wire) next(r *bufio.Reader, line []byte) ([]byte, error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(line)+len(chunk) > maxMessage {
				w.log.Warn("acp: inbound message too large, skipped", "limit", maxMessage)
				w.writeError(-32600, "Invalid request: message larger than 8 MiB")
				skipLine(r)
				return line[:0], nil
			}
			line = append(line, chunk...)
			continue
		}
		if err != nil && len(chunk) == 0 && len(line) == 0 {
			return line, err
		}
		line = append(line, chunk...)
		switch {
		case len(line) > maxMessage:
			w.writeError(-32600, "Invalid request: message larger than 8 MiB")
			line = line[:0]
		case !w.check(line):
			line = line[:0]
		case line[len(line)-1] != '\n':
			line = append(line, '\n')
		}
		return line, err
	}
}

// check reports whether line goes on to the SDK, and answers it if not.
func (w *wire) check(line []byte) bool {
	t := bytes.TrimSpace(line)
	switch {
	case len(t) == 0:
		return false
	case !json.Valid(t):
		w.log.Warn("acp: inbound line is not JSON", "bytes", len(t))
		w.writeError(-32700, "Parse error: the line is not JSON")
		return false
	case t[0] == '[':
		w.writeError(-32600, "Invalid request: batches are not part of ACP")
		return false
	case t[0] != '{':
		w.writeError(-32600, "Invalid request: a message is a JSON object")
		return false
	case bytes.Contains(t, []byte(`"id"`)) && !validID(t):
		// JSON-RPC 2.0: an id is a string, a number or null. The SDK
		// would take an object or an array as an id and answer with it.
		w.log.Warn("acp: inbound message with an id that is not a string, a number or null", "bytes", len(t))
		w.writeError(-32600, "Invalid request: an id is a string, a number or null")
		return false
	}
	if w.onInitialize != nil && bytes.Contains(t, []byte(`"initialize"`)) {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(t, &m) == nil && m.Method == "initialize" && len(m.ID) > 0 && string(m.ID) != "null" {
			w.onInitialize(m.ID)
		}
	}
	return true
}

// validID reports whether the message msg (a JSON object) has no id or
// one JSON-RPC allows: a string, a number or null.
func validID(msg []byte) bool {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if err := json.Unmarshal(msg, &m); err != nil {
		return false
	}
	if len(m.ID) == 0 {
		return true
	}
	switch m.ID[0] {
	case '{', '[', 't', 'f':
		return false
	}
	return true
}

func skipLine(r *bufio.Reader) {
	for {
		_, err := r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}
