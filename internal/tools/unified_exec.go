package tools

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
)

// Limits of the command sessions exec_command starts.
const (
	// MaxTerminals is how many sessions one agent session keeps at once:
	// running, or ended with output the model has not read yet.
	MaxTerminals = 64
	// terminalBufferBytes bounds the output a session keeps until the
	// model reads it: its first and last halves.
	terminalBufferBytes = 1 << 20
	// firstTerminalID is the session_id of an agent session's first
	// command session.
	firstTerminalID = 1000
)

// Terminals are the command sessions exec_command started in one agent
// session, which write_stdin talks to. They live across the session's
// turns (an interrupt stops a turn, not them) and are killed, with all
// they started, by Close. The zero value is not ready: use NewTerminals.
type Terminals struct {
	emit func(event.Payload)

	mu    sync.Mutex
	procs map[int]*terminal
	// listed are the sessions the user sees listed (Terminals.List): the
	// kept ones and the latest that were let go.
	listed []*terminal
	next   int
	closed bool
	ctx    context.Context // ended by Close: kills every command
	cancel context.CancelFunc
}

// NewTerminals returns the store of one agent session's command sessions.
// emit sends their terminal events; it is called from the sessions' own
// goroutines, also between turns, and must not block for long.
func NewTerminals(emit func(event.Payload)) *Terminals {
	ctx, cancel := context.WithCancel(context.Background())
	if emit == nil {
		emit = func(event.Payload) {}
	}
	return &Terminals{emit: emit, procs: make(map[int]*terminal), next: firstTerminalID, ctx: ctx, cancel: cancel}
}

// errTerminalsClosed: the agent session ended.
var errTerminalsClosed = errors.New("the session is closing; no command can start")

// add reserves an id for a new session, or says why none may start.
func (ts *Terminals) add(t *terminal) (int, error) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if ts.closed {
		return 0, errTerminalsClosed
	}
	if len(ts.procs) >= MaxTerminals {
		return 0, fmt.Errorf("refused: %d command sessions are open already (session ids %s), the most one session keeps. "+
			"End one first with write_stdin: send it what makes it quit (\"exit\\n\", \"q\", or Ctrl-C \"\\u0003\" when it runs with tty=true), "+
			"then poll it with an empty write_stdin until it reports its exit code; a session that ended is let go once its last output was read",
			len(ts.procs), ts.idsLocked())
	}
	id := ts.next
	ts.next++
	t.id = id
	ts.procs[id] = t
	return id, nil
}

func (ts *Terminals) idsLocked() string {
	ids := make([]int, 0, len(ts.procs))
	for id := range ts.procs {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return IDList(ids)
}

// get returns the session with id.
func (ts *Terminals) get(id int) (*terminal, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.procs[id]
	return t, ok
}

// forget lets a session go (it ended and the model read all of it, or
// it never started).
func (ts *Terminals) forget(id int) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	delete(ts.procs, id)
}

// Live returns how many sessions are kept (running, or ended with output
// not yet read).
func (ts *Terminals) Live() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return len(ts.procs)
}

// Close kills every session's command and all it started, and waits
// until each was reaped and reported (terminalExited). Nothing starts
// afterwards. Calling it again does nothing.
func (ts *Terminals) Close() {
	ts.mu.Lock()
	if ts.closed {
		ts.mu.Unlock()
		return
	}
	ts.closed = true
	procs := make([]*terminal, 0, len(ts.procs))
	for _, t := range ts.procs {
		procs = append(procs, t)
	}
	ts.mu.Unlock()
	for _, t := range procs {
		t.markKilled("when the agent session closed")
	}
	ts.cancel()
	for _, t := range procs {
		<-t.done
	}
}
