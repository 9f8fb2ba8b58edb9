package tools

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
)

// terminalLive records what a terminal's live output sends.
type terminalLive struct {
	mu   sync.Mutex
	data strings.Builder
	sent chan string // each chunk, as it is sent
}

func newTerminalLive(window time.Duration) (*liveOutput, *terminalLive) {
	r := &terminalLive{sent: make(chan string, 1024)}
	l := newTerminalOutput(func(p event.Payload) {
		chunk := p.(event.TerminalOutput).Data
		r.mu.Lock()
		r.data.WriteString(chunk)
		r.mu.Unlock()
		select {
		case r.sent <- chunk:
		default:
		}
	}, "1000")
	l.window = window
	return l, r
}

func (r *terminalLive) text() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.data.String()
}

// waitFor waits until a chunk holding want is sent.
func (r *terminalLive) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
	for {
		select {
		case c := <-r.sent:
			if strings.Contains(c, want) {
				return
			}
		case <-deadline:
			t.Fatalf("no chunk with %q; sent so far ends %q", want, tail(r.text(), 300))
		}
	}
}

func tail(s string, n int) string { return s[max(0, len(s)-n):] }

// TestTerminalLiveOutputGoesOnAfterABurst: a terminal's command may run
// for hours. A burst beyond the live budget is skipped, and when the
// window ends the view is told how much, gets the burst's last lines, and
// output is shown live again.
func TestTerminalLiveOutputGoesOnAfterABurst(t *testing.T) {
	l, r := newTerminalLive(200 * time.Millisecond)
	burst := bytes.Repeat([]byte("0123456789abcde\n"), 2*liveMaxBytes/16) // 2 MiB
	copy(burst[len(burst)-16:], "the burst ends\n\n")
	l.write("stdout", burst)
	r.waitFor(t, "output too fast to show live")
	r.waitFor(t, "not shown live. The last lines:")
	r.waitFor(t, "the burst ends")
	l.write("stdout", []byte("later output\n"))
	r.waitFor(t, "later output")
	l.close()
	got := r.text()
	if strings.Contains(got, "summarised in the tool result") {
		t.Errorf("a terminal's view is told of a tool result it does not have: %q", tail(got, 400))
	}
	if n := len(got); n > liveMaxBytes+3*liveTailBytes+1024 {
		t.Errorf("%d bytes shown of a 2 MiB burst: more than the budget", n)
	}
	if !strings.HasSuffix(got, "later output\n") {
		t.Errorf("live output does not end with what came after the burst: %q", tail(got, 200))
	}
}

// TestTerminalLiveBudgetRenews: output that stays within the budget of
// each window is all shown, however much it adds up to.
func TestTerminalLiveBudgetRenews(t *testing.T) {
	l, r := newTerminalLive(time.Millisecond)
	part := bytes.Repeat([]byte("x"), liveMaxBytes*3/4)
	for range 3 {
		l.write("stdout", part)
		time.Sleep(5 * time.Millisecond) // past the window: a new one begins
	}
	l.close()
	got := r.text()
	if len(got) != 3*len(part) || strings.Contains(got, "not shown live") {
		t.Errorf("shown %d of %d bytes (%q at the end)", len(got), 3*len(part), tail(got, 120))
	}
}

// TestTerminalLiveCloseInASpentWindow: a command that ends while its
// window is spent has the skipped part reported once, at the end, and
// nothing is sent after that.
func TestTerminalLiveCloseInASpentWindow(t *testing.T) {
	l, r := newTerminalLive(time.Hour)
	l.write("stdout", bytes.Repeat([]byte("y\n"), liveMaxBytes))
	l.write("stdout", []byte("the end\n"))
	l.close()
	got := r.text()
	if strings.Count(got, "not shown live. The last lines:") != 1 || !strings.HasSuffix(got, "the end\n") {
		t.Errorf("end of a spent window reported as %q", tail(got, 300))
	}
	l.onResume() // as the window's timer would, late
	l.write("stdout", []byte("after close\n"))
	if r.text() != got {
		t.Errorf("sent after close: %q", strings.TrimPrefix(r.text(), got))
	}
}
