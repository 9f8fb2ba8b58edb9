package editor

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/event"
)

// Event is one agent/event notification (protocol section 3) with every
// field any event type carries; the fields of other types are zero. Raw is
// the notification's params as sent.
type Event struct {
	SessionID string     `json:"sessionId"`
	TurnID    string     `json:"turnId"`
	Seq       int64      `json:"seq"`
	Type      event.Type `json:"type"`

	// turnStarted
	Prompt string `json:"prompt"`
	// messageDelta, message, reasoningDelta, reasoning
	ItemID string `json:"itemId"`
	Delta  string `json:"delta"`
	Text   string `json:"text"`
	// toolCall, execOutput, toolResult, fileChange
	CallID string `json:"callId"`
	Tool   string `json:"tool"`
	// Server names the MCP server of Tool (toolCall, toolResult).
	Server    string          `json:"server"`
	Kind      string          `json:"kind"` // toolCall and approval
	Title     string          `json:"title"`
	Arguments json.RawMessage `json:"arguments"`
	Stream    string          `json:"stream"`
	Chunk     string          `json:"chunk"`
	// Status is the toolResult, fileChange or turnCompleted status.
	Status     string       `json:"status"`
	Output     string       `json:"output"`
	DurationMs int64        `json:"durationMs"`
	Changes    []FileChange `json:"changes"`
	Diff       string       `json:"diff"` // fileChange and turnCompleted
	// plan
	Explanation string     `json:"explanation"`
	Steps       []PlanStep `json:"steps"`
	// approval
	ApprovalID string `json:"approvalId"`
	Decision   string `json:"decision"`
	// usage
	InputTokens       int64 `json:"inputTokens"`
	CachedInputTokens int64 `json:"cachedInputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	ReasoningTokens   int64 `json:"reasoningTokens"`
	ContextWindow     int64 `json:"contextWindow"`
	// retry
	Attempt int    `json:"attempt"`
	DelayMs int64  `json:"delayMs"`
	Message string `json:"message"`
	// compacted
	Summary      string `json:"summary"`
	TokensBefore int64  `json:"tokensBefore"`
	TokensAfter  int64  `json:"tokensAfter"`
	// turnCompleted
	Error       string `json:"error"`
	LastMessage string `json:"lastMessage"`

	Raw json.RawMessage `json:"-"`
}

// FileChange is one file of a fileChange event.
type FileChange struct {
	URI       string           `json:"uri"`
	Kind      event.ChangeKind `json:"kind"`
	NewURI    string           `json:"newUri"`
	Additions int              `json:"additions"`
	Deletions int              `json:"deletions"`
}

// PlanStep is one step of a plan event.
type PlanStep struct {
	Step   string           `json:"step"`
	Status event.StepStatus `json:"status"`
}

func decodeEvent(params []byte) (Event, error) {
	var ev Event
	if err := json.Unmarshal(params, &ev); err != nil {
		return Event{}, err
	}
	ev.Raw = slices.Clone(params)
	return ev, nil
}

// Progress is one window/workDoneProgress/create request (Kind "create")
// or $/progress notification (Kind "begin", "report" or "end").
type Progress struct {
	Token       string
	Kind        string
	Title       string
	Message     string
	Cancellable bool
	Percentage  *uint32
}

func decodeProgress(params []byte) (Progress, error) {
	var p protocol.ProgressParams
	if err := protocol.Unmarshal(params, &p); err != nil {
		return Progress{}, err
	}
	var v struct {
		Kind        string  `json:"kind"`
		Title       string  `json:"title"`
		Message     string  `json:"message"`
		Cancellable bool    `json:"cancellable"`
		Percentage  *uint32 `json:"percentage"`
	}
	if err := json.Unmarshal(p.Value, &v); err != nil {
		return Progress{}, err
	}
	return Progress{Token: tokenString(p.Token), Kind: v.Kind, Title: v.Title, Message: v.Message,
		Cancellable: v.Cancellable, Percentage: v.Percentage}, nil
}

// Events returns the agent/event notifications received so far, in order.
func (e *Editor) Events() []Event { return e.events.all() }

// WaitEvent returns the first event (of all received) that match accepts,
// waiting for it until ctx ends or the connection does.
func (e *Editor) WaitEvent(ctx context.Context, match func(Event) bool) (Event, error) {
	ev, _, err := e.events.wait(ctx, 0, match)
	return ev, err
}

// WaitTurnCompleted waits for the turnCompleted event of a turn.
func (e *Editor) WaitTurnCompleted(ctx context.Context, turnID string) (Event, error) {
	return e.WaitEvent(ctx, func(ev Event) bool { return ev.Type == event.TypeTurnCompleted && ev.TurnID == turnID })
}

// Progress returns the progress messages received so far, in order.
func (e *Editor) Progress() []Progress { return e.progress.all() }

// WaitProgress returns the first progress message that match accepts,
// waiting for it until ctx ends or the connection does.
func (e *Editor) WaitProgress(ctx context.Context, match func(Progress) bool) (Progress, error) {
	p, _, err := e.progress.wait(ctx, 0, match)
	return p, err
}

// EventStream reads agent/event notifications one by one, from the first
// received on.
type EventStream struct {
	e    *Editor
	next int
}

// EventStream returns a reader of the events from the first one received.
func (e *Editor) EventStream() *EventStream { return &EventStream{e: e} }

// Next returns the next event, waiting for it.
func (s *EventStream) Next(ctx context.Context) (Event, error) {
	ev, i, err := s.e.events.wait(ctx, s.next, func(Event) bool { return true })
	if err == nil {
		s.next = i + 1
	}
	return ev, err
}

// ErrClosed is returned by waits when the connection ended first.
var ErrClosed = errors.New("editor: the connection has ended")

// journal is an append-only log that can be waited on.
type journal[T any] struct {
	mu      sync.Mutex
	items   []T
	changed chan struct{} // closed and replaced on every change
	closed  bool
}

func (j *journal[T]) init() { j.changed = make(chan struct{}) }

func (j *journal[T]) add(v T) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.items = append(j.items, v)
	close(j.changed)
	j.changed = make(chan struct{})
}

func (j *journal[T]) close() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.closed = true
	close(j.changed)
	j.changed = make(chan struct{})
}

func (j *journal[T]) all() []T {
	j.mu.Lock()
	defer j.mu.Unlock()
	return slices.Clone(j.items)
}

// wait returns the first item at index from or later that match accepts,
// and its index.
func (j *journal[T]) wait(ctx context.Context, from int, match func(T) bool) (T, int, error) {
	for {
		j.mu.Lock()
		for i := from; i < len(j.items); i++ {
			if match(j.items[i]) {
				v := j.items[i]
				j.mu.Unlock()
				return v, i, nil
			}
		}
		from = max(from, len(j.items))
		changed, closed := j.changed, j.closed
		j.mu.Unlock()
		var zero T
		if closed {
			return zero, -1, ErrClosed
		}
		select {
		case <-ctx.Done():
			return zero, -1, ctx.Err()
		case <-changed:
		}
	}
}
