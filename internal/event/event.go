// Package event defines the events a turn produces, exactly as they travel on
// the wire in `agent/event` notifications (protocol section 3) and in
// `agent-ls exec --json` output. Every package that produces or consumes
// events shares these types, so the JSON shape is defined in one place.
package event

import (
	"encoding/json"
	"fmt"
)

// Event is one turn event: a header common to all events plus a typed
// payload. It marshals to one flat JSON object: {sessionId, turnId, seq,
// type, ...payload fields}.
type Event struct {
	SessionID string
	TurnID    string
	Seq       int64
	Payload   Payload
}

// Payload is the type-specific part of an event.
type Payload interface {
	EventType() string
}

// MarshalJSON flattens the header and the payload into one object.
func (e Event) MarshalJSON() ([]byte, error) {
	if e.Payload == nil {
		return nil, fmt.Errorf("event %d has no payload", e.Seq)
	}
	body, err := json.Marshal(e.Payload)
	if err != nil {
		return nil, fmt.Errorf("marshal %s event: %w", e.Payload.EventType(), err)
	}
	header, err := json.Marshal(struct {
		SessionID string `json:"sessionId"`
		TurnID    string `json:"turnId"`
		Seq       int64  `json:"seq"`
		Type      string `json:"type"`
	}{e.SessionID, e.TurnID, e.Seq, e.Payload.EventType()})
	if err != nil {
		return nil, err
	}
	if string(body) == "{}" {
		return header, nil
	}
	// header is "{...}" and body is "{...}": splice them.
	out := make([]byte, 0, len(header)+len(body))
	out = append(out, header[:len(header)-1]...)
	out = append(out, ',')
	out = append(out, body[1:]...)
	return out, nil
}

// Type returns the wire name of the event's type.
func (e Event) Type() string {
	if e.Payload == nil {
		return ""
	}
	return e.Payload.EventType()
}

// Tool kinds of the toolCall event.
const (
	KindRead    = "read"
	KindEdit    = "edit"
	KindDelete  = "delete"
	KindMove    = "move"
	KindSearch  = "search"
	KindExecute = "execute"
	KindThink   = "think"
	KindFetch   = "fetch"
	KindOther   = "other"
)

// Turn statuses of turnCompleted.
const (
	StatusCompleted   = "completed"
	StatusInterrupted = "interrupted"
	StatusFailed      = "failed"
)

// Tool result statuses of toolResult.
const (
	ToolCompleted = "completed"
	ToolFailed    = "failed"
	ToolRejected  = "rejected"
)

type TurnStarted struct {
	Prompt string `json:"prompt"`
}

type MessageDelta struct {
	ItemID string `json:"itemId"`
	Delta  string `json:"delta"`
}

type Message struct {
	ItemID string `json:"itemId"`
	Text   string `json:"text"`
}

type ReasoningDelta struct {
	ItemID string `json:"itemId"`
	Delta  string `json:"delta"`
}

type Reasoning struct {
	ItemID string `json:"itemId"`
	Text   string `json:"text"`
}

type ToolCall struct {
	CallID    string          `json:"callId"`
	Tool      string          `json:"tool"`
	Kind      string          `json:"kind"`
	Title     string          `json:"title"`
	Arguments json.RawMessage `json:"arguments"`
}

type ExecOutput struct {
	CallID string `json:"callId"`
	Stream string `json:"stream"`
	Chunk  string `json:"chunk"`
}

type ToolResult struct {
	CallID     string `json:"callId"`
	Tool       string `json:"tool"`
	Status     string `json:"status"`
	Output     string `json:"output"`
	DurationMs int64  `json:"durationMs"`
}

type FileChangeEntry struct {
	URI       string `json:"uri"`
	Kind      string `json:"kind"`
	NewURI    string `json:"newUri,omitempty"`
	Additions int    `json:"additions"`
	Deletions int    `json:"deletions"`
}

type FileChange struct {
	CallID  string            `json:"callId"`
	Changes []FileChangeEntry `json:"changes"`
	Diff    string            `json:"diff"`
	Status  string            `json:"status"`
}

// Plan step statuses.
const (
	StepPending    = "pending"
	StepInProgress = "in_progress"
	StepCompleted  = "completed"
)

type PlanStep struct {
	Step   string `json:"step"`
	Status string `json:"status"`
}

type Plan struct {
	Explanation string     `json:"explanation,omitempty"`
	Steps       []PlanStep `json:"steps"`
}

type Approval struct {
	ApprovalID string `json:"approvalId"`
	Kind       string `json:"kind"`
	Decision   string `json:"decision"`
}

type Usage struct {
	InputTokens       int64 `json:"inputTokens"`
	CachedInputTokens int64 `json:"cachedInputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	ReasoningTokens   int64 `json:"reasoningTokens"`
	ContextWindow     int64 `json:"contextWindow,omitempty"`
}

type Retry struct {
	Attempt int    `json:"attempt"`
	DelayMs int64  `json:"delayMs"`
	Message string `json:"message"`
}

type Compacted struct {
	Summary      string `json:"summary"`
	TokensBefore int64  `json:"tokensBefore"`
	TokensAfter  int64  `json:"tokensAfter"`
}

type TurnCompleted struct {
	Status      string `json:"status"`
	Error       string `json:"error,omitempty"`
	LastMessage string `json:"lastMessage,omitempty"`
	Diff        string `json:"diff"`
}

func (TurnStarted) EventType() string    { return "turnStarted" }
func (MessageDelta) EventType() string   { return "messageDelta" }
func (Message) EventType() string        { return "message" }
func (ReasoningDelta) EventType() string { return "reasoningDelta" }
func (Reasoning) EventType() string      { return "reasoning" }
func (ToolCall) EventType() string       { return "toolCall" }
func (ExecOutput) EventType() string     { return "execOutput" }
func (ToolResult) EventType() string     { return "toolResult" }
func (FileChange) EventType() string     { return "fileChange" }
func (Plan) EventType() string           { return "plan" }
func (Approval) EventType() string       { return "approval" }
func (Usage) EventType() string          { return "usage" }
func (Retry) EventType() string          { return "retry" }
func (Compacted) EventType() string      { return "compacted" }
func (TurnCompleted) EventType() string  { return "turnCompleted" }
