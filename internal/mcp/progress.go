package mcp

import (
	"strconv"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// A tools/call carries a progress token; the server's notifications/progress
// for it become toolProgress events of the call (progress, total,
// message), at most one per progressInterval: a server that floods
// progress costs the editor four updates a second, the latest of each
// interval. None follows the call's end.

// progressInterval is the least time between two progress events of a
// call.
const progressInterval = 250 * time.Millisecond

// maxProgressMessage bounds the message of a progress event, in bytes.
const maxProgressMessage = 500

// progressRoutes send a connection's progress notifications to the calls
// that asked for them, by token.
type progressRoutes struct {
	mu     sync.Mutex
	next   uint64
	routes map[string]func(*sdk.ProgressNotificationParams)
}

// add routes the notifications of a new token to fn until done is
// called.
func (p *progressRoutes) add(fn func(*sdk.ProgressNotificationParams)) (token string, done func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	token = "agent-ls-" + strconv.FormatUint(p.next, 10)
	if p.routes == nil {
		p.routes = map[string]func(*sdk.ProgressNotificationParams){}
	}
	p.routes[token] = fn
	return token, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		delete(p.routes, token)
	}
}

// deliver passes a notification to its call; one for a token no call
// holds (a call that ended, a server that made one up) is dropped.
func (p *progressRoutes) deliver(n *sdk.ProgressNotificationParams) {
	token, ok := n.ProgressToken.(string)
	if !ok {
		return
	}
	p.mu.Lock()
	fn := p.routes[token]
	p.mu.Unlock()
	if fn != nil {
		fn(n)
	}
}

// progressReporter turns one call's progress notifications into events,
// rate-limited. update never blocks: the events are emitted from a timer.
type progressReporter struct {
	callID string
	emit   func(event.Payload)

	// emitMu is held while an event is emitted, so that close waits for
	// one under way.
	emitMu sync.Mutex

	mu      sync.Mutex
	pending *event.ToolProgress
	last    time.Time
	timer   *time.Timer
	closed  bool
}

func newProgressReporter(callID string, emit func(event.Payload)) *progressReporter {
	return &progressReporter{callID: callID, emit: emit}
}

// update takes a notification; the latest of an interval is emitted.
func (r *progressReporter) update(n *sdk.ProgressNotificationParams) {
	ev := &event.ToolProgress{CallID: r.callID, Progress: n.Progress, Total: n.Total,
		Message: textcut.VisibleLine(textcut.Cut(n.Message, maxProgressMessage))}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return
	}
	r.pending = ev
	if r.timer == nil {
		r.timer = time.AfterFunc(max(0, progressInterval-time.Since(r.last)), r.flush)
	}
}

// flush emits the pending event.
func (r *progressReporter) flush() {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.mu.Lock()
	ev, closed := r.pending, r.closed
	r.pending, r.timer, r.last = nil, nil, time.Now()
	r.mu.Unlock()
	if ev != nil && !closed {
		r.emit(*ev)
	}
}

// close drops what is pending; no event is emitted after it returns.
func (r *progressReporter) close() {
	r.emitMu.Lock()
	defer r.emitMu.Unlock()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.closed = true
	if r.timer != nil {
		r.timer.Stop()
	}
}
