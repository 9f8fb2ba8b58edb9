package tools

import (
	"fmt"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/agent-ls/agent-ls/internal/event"
)

// What a command shows live (execOutput events): chunks of at most
// liveChunkBytes, sent at least every liveFlushDelay while output comes,
// up to liveMaxBytes in all; after that only its last liveTailBytes per
// stream, at the end, after a line that says how much was not shown.
//
// A terminal (exec_command) may run for hours, so its budget is per
// terminalLiveWindow instead: output beyond liveMaxBytes within one
// window is skipped, and when the window ends a line says how much was
// skipped, its last lines follow, and showing goes on.
const (
	liveChunkBytes     = 16 << 10
	liveFlushDelay     = 50 * time.Millisecond
	liveMaxBytes       = 1 << 20
	liveTailBytes      = 4 << 10
	terminalLiveWindow = 10 * time.Second
)

// liveOutput coalesces a command's output into bounded execOutput events.
// Its memory is bounded whatever the command writes.
type liveOutput struct {
	mu   sync.Mutex
	emit func(event.Payload)
	// out turns a chunk of a stream into its event.
	out     func(stream, chunk string) event.Payload
	stream  string // of pending
	pending []byte
	timer   *time.Timer
	sent    int64
	// Once the budget is spent: bytes not sent, and the last bytes of
	// each stream.
	dropped int64
	tails   map[string][]byte
	closed  bool

	// window, when not zero, renews the budget: liveMaxBytes per window
	// from windowStart; resume reports what a spent window skipped.
	window      time.Duration
	windowStart time.Time
	resume      *time.Timer
}

func newLiveOutput(emit func(event.Payload), callID string) *liveOutput {
	return &liveOutput{emit: emit, out: func(stream, chunk string) event.Payload {
		return event.ExecOutput{CallID: callID, Stream: stream, Chunk: chunk}
	}}
}

// newTerminalOutput is the live output of terminal id: its budget renews
// every terminalLiveWindow.
func newTerminalOutput(emit func(event.Payload), id string) *liveOutput {
	return &liveOutput{emit: emit, window: terminalLiveWindow, out: func(_, chunk string) event.Payload {
		return event.TerminalOutput{TerminalID: id, Data: chunk}
	}}
}

func (l *liveOutput) write(stream string, p []byte) {
	if l.emit == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	if l.window > 0 && l.dropped == 0 && time.Since(l.windowStart) >= l.window {
		// Nothing skipped in the window that ended: a new one begins.
		l.sent, l.windowStart = int64(len(l.pending)), time.Now()
	}
	if len(l.pending) > 0 && l.stream != stream {
		l.flush(true)
	}
	l.stream = stream
	if room := liveMaxBytes - l.sent - int64(len(l.pending)); room > 0 {
		n := int(min(room, int64(len(p))))
		l.pending = append(l.pending, p[:n]...)
		p = p[n:]
		for len(l.pending) >= liveChunkBytes {
			l.flushChunk()
		}
		if len(p) > 0 {
			l.flush(true)
			l.spent()
		}
	}
	if len(p) > 0 {
		l.keepTail(stream, p)
		return
	}
	if len(l.pending) > 0 && l.timer == nil {
		l.timer = time.AfterFunc(liveFlushDelay, l.onTimer)
	}
}

func (l *liveOutput) onTimer() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.timer = nil
	if !l.closed {
		l.flush(false)
	}
}

// flushChunk sends the first liveChunkBytes of pending, less a character
// cut at the end.
func (l *liveOutput) flushChunk() {
	n := completePrefix(l.pending[:liveChunkBytes])
	if n == 0 {
		n = liveChunkBytes
	}
	l.sendBytes(l.pending[:n])
	l.pending = l.pending[:copy(l.pending, l.pending[n:])]
}

// flush sends what is pending; unless all, a character still incomplete
// at the end waits for its last bytes.
func (l *liveOutput) flush(all bool) {
	n := len(l.pending)
	if !all {
		n = completePrefix(l.pending)
	}
	if n == 0 {
		return
	}
	l.sendBytes(l.pending[:n])
	l.pending = l.pending[:copy(l.pending, l.pending[n:])]
}

func (l *liveOutput) sendBytes(b []byte) {
	l.sent += int64(len(b))
	l.send(l.stream, validUTF8(b))
}

func (l *liveOutput) send(stream, chunk string) {
	l.emit(l.out(stream, chunk))
}

// spent says the budget is spent: for a command until it ends, for a
// terminal until its window does.
func (l *liveOutput) spent() {
	if l.window == 0 {
		l.send("stdout", "\n[... output too long to show live; the rest is summarised in the tool result, and its last lines are shown when the command ends ...]\n")
		return
	}
	l.send("stdout", "\n[... output too fast to show live: some is skipped, and showing goes on within seconds ...]\n")
	l.resume = time.AfterFunc(max(0, l.window-time.Since(l.windowStart)), l.onResume)
}

// onResume ends a spent terminal window: it reports what was skipped and
// starts a new window.
func (l *liveOutput) onResume() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.resume = nil
	l.reportSkipped("\n[... %s not shown live. The last lines: ...]\n")
	l.sent, l.dropped, l.tails, l.windowStart = 0, 0, nil, time.Now()
}

// keepTail counts p as not shown and keeps the last bytes of its stream.
func (l *liveOutput) keepTail(stream string, p []byte) {
	l.dropped += int64(len(p))
	if l.tails == nil {
		l.tails = make(map[string][]byte)
	}
	t := append(l.tails[stream], p[max(0, len(p)-liveTailBytes):]...)
	if len(t) > 2*liveTailBytes {
		t = append(t[:0:0], t[len(t)-liveTailBytes:]...)
	}
	l.tails[stream] = t
}

// close sends what is pending and, if output was held back, how much and
// the last lines of each stream. Nothing is sent after it.
func (l *liveOutput) close() {
	if l.emit == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return
	}
	l.closed = true
	if l.timer != nil {
		l.timer.Stop()
	}
	if l.resume != nil {
		l.resume.Stop()
	}
	l.flush(true)
	note := "\n[... %s not shown live; the full output is summarised in the tool result. The last lines: ...]\n"
	if l.window > 0 {
		note = "\n[... %s not shown live. The last lines: ...]\n"
	}
	l.reportSkipped(note)
}

// reportSkipped, when output was skipped, says how much (note has one %s)
// and sends the last lines of each stream.
func (l *liveOutput) reportSkipped(note string) {
	if l.dropped == 0 {
		return
	}
	shown := make(map[string][]byte)
	var shownBytes int64
	for _, stream := range []string{"stdout", "stderr"} {
		t := lastLines(l.tails[stream], liveTailBytes)
		shown[stream] = t
		shownBytes += int64(len(t))
	}
	l.send("stdout", fmt.Sprintf(note, humanBytes(l.dropped-shownBytes)))
	for _, stream := range []string{"stdout", "stderr"} {
		if t := shown[stream]; len(t) > 0 {
			l.send(stream, validUTF8(t))
		}
	}
}

// completePrefix is the length of b without an incomplete character at
// its end.
func completePrefix(b []byte) int {
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if utf8.FullRune(b[i:]) {
				return len(b)
			}
			return i
		}
	}
	return len(b)
}

// lastLines is the end of b, at most max bytes, from a line start when
// there is one, else from a character start.
func lastLines(b []byte, max int) []byte {
	if len(b) == 0 {
		return nil
	}
	from := len(b) - tailStart(b, len(b), max)
	return b[from:]
}

// humanBytes says a size the way people read it: 812 MB, 3.4 KB.
func humanBytes(n int64) string {
	units := []string{"bytes", "KB", "MB", "GB", "TB"}
	f, u := float64(n), 0
	for f >= 1000 && u < len(units)-1 {
		f /= 1000
		u++
	}
	switch {
	case u == 0:
		return fmt.Sprintf("%d bytes", n)
	case f < 10:
		return fmt.Sprintf("%.1f %s", f, units[u])
	}
	return fmt.Sprintf("%.0f %s", f, units[u])
}
