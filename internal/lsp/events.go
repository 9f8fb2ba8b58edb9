package lsp

import (
	"context"
	"encoding/json"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
)

// methodEvent is the notification that carries turn events (protocol
// section 3).
const methodEvent = "agent/event"

var _ agent.Frontend = (*server)(nil)

// Event queues one turn event for the editor. It never blocks: a turn must
// not wait for a slow editor.
func (s *server) Event(ev event.Event) {
	s.convs.observe(ev)
	s.terms.observe(ev)
	s.out.push(outItem{event: &ev})
}

// outbox delivers what the agent reports to the editor, in the order it
// was reported, from one goroutine: agent/event notifications to clients
// that opted in, messages to the others, $/progress to clients that
// support it, and every event to the session's transcript.
type outbox struct {
	s           *server
	progress    *progress
	plain       *plain
	transcripts *transcripts
	// transcriptFailed: a failure to write transcripts was logged once.
	transcriptFailed bool

	mu    sync.Mutex
	queue []outItem
	state queueState // see outqueue.go
	wake  chan struct{}
}

// outItem is a turn event, or the editor's answer to a progress token
// request (which arrives on another goroutine and is applied in line with
// the events).
type outItem struct {
	event   *event.Event
	created *created
	// notice is a window/showMessage.
	notice *protocol.ShowMessageParams
	// reached, when set, is closed once everything queued before it has
	// been delivered.
	reached chan struct{}
	// capped holds a merged execOutput grown too long (outqueue.go).
	capped *capped
	// rewrite marks a resumed session's transcript to be written anew
	// from its events; settle, a session's transcript to be written
	// anew now if it is so marked.
	rewrite *transcriptRewrite
	settle  string
}

func newOutbox(s *server) *outbox {
	return &outbox{
		s:           s,
		progress:    newProgress(s),
		plain:       newPlain(s),
		transcripts: newTranscripts(s.opts.TranscriptDir),
		wake:        make(chan struct{}, 1),
	}
}

func (o *outbox) push(it outItem) {
	o.mu.Lock()
	o.enqueue(it)
	o.mu.Unlock()
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// drained waits until everything queued so far has been delivered, so a
// request to the editor never overtakes the events that explain it.
func (o *outbox) drained(ctx context.Context) error {
	reached := make(chan struct{})
	o.push(outItem{reached: reached})
	select {
	case <-reached:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// run delivers queued items until ctx ends.
func (o *outbox) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-o.wake:
		}
		o.mu.Lock()
		batch := o.queue
		o.queue = nil
		o.taken(batch)
		o.mu.Unlock()
		for _, it := range batch {
			if ctx.Err() != nil {
				return
			}
			o.deliver(ctx, it)
		}
	}
}

func (o *outbox) deliver(ctx context.Context, it outItem) {
	if it.reached != nil {
		close(it.reached)
		return
	}
	if it.created != nil {
		o.progress.created(ctx, *it.created)
		return
	}
	if it.notice != nil {
		o.s.showMessage(ctx, it.notice.Type, it.notice.Message)
		return
	}
	if it.rewrite != nil {
		// Written when next shown or added to: a client that resumes a
		// long session should not wait on it.
		o.transcripts.stale[it.rewrite.session] = *it.rewrite
		return
	}
	if it.settle != "" {
		if err := o.transcripts.settle(it.settle); err != nil {
			o.s.log.Warn("the conversation cannot be written anew", "session", it.settle, "err", err)
		}
		return
	}
	if err := o.transcripts.record(*it.event); err != nil && !o.transcriptFailed {
		o.transcriptFailed = true
		o.s.log.Warn("the conversation is not kept", "err", err)
	}
	caps := o.s.capabilities()
	if caps.AgentEvents {
		b, err := json.Marshal(it.event)
		if err != nil {
			o.s.log.Error("event not sent", "type", it.event.Type(), "err", err)
		} else {
			o.s.notify(ctx, methodEvent, jsonrpc2.RawMessage(b))
		}
	} else {
		o.plain.event(ctx, *it.event)
	}
	if caps.WorkDoneProgress {
		o.progress.event(ctx, *it.event)
	}
}
