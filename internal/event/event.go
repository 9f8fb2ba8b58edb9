// Package event defines the events a turn produces, exactly as they travel on
// the wire in `agent/event` notifications (protocol section 3) and in
// `agent-ls exec --json` output. Every package that produces or consumes
// events shares these types, so the JSON shape is defined in one place.
package event

import (
	"encoding/json"
	"fmt"
	"strconv"
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
	EventType() Type
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
		Type      Type   `json:"type"`
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
func (e Event) Type() Type {
	if e.Payload == nil {
		return ""
	}
	return e.Payload.EventType()
}

// Type is the wire name of an event's type (the "type" field).
type Type string

// The event types of protocol section 3.
const (
	TypeTurnStarted    Type = "turnStarted"
	TypeMessageDelta   Type = "messageDelta"
	TypeMessage        Type = "message"
	TypeReasoningDelta Type = "reasoningDelta"
	TypeReasoning      Type = "reasoning"
	TypeToolCall       Type = "toolCall"
	TypeExecOutput     Type = "execOutput"
	TypeToolProgress   Type = "toolProgress"
	TypeToolResult     Type = "toolResult"
	TypeFileChange     Type = "fileChange"
	TypePlan           Type = "plan"
	TypeApproval       Type = "approval"
	TypeUsage          Type = "usage"
	TypeRetry          Type = "retry"
	TypeCompacted      Type = "compacted"
	TypeTurnCompleted  Type = "turnCompleted"
)

// ToolKind is what a tool call does, for clients to pick an icon or a
// wording (the toolCall event's kind).
type ToolKind string

// Tool kinds of the toolCall event.
const (
	KindRead    ToolKind = "read"
	KindEdit    ToolKind = "edit"
	KindDelete  ToolKind = "delete"
	KindMove    ToolKind = "move"
	KindSearch  ToolKind = "search"
	KindExecute ToolKind = "execute"
	KindThink   ToolKind = "think"
	KindFetch   ToolKind = "fetch"
	KindOther   ToolKind = "other"
)

// TurnStatus is how a turn ended (turnCompleted's status).
type TurnStatus string

// Turn statuses of turnCompleted.
const (
	StatusCompleted   TurnStatus = "completed"
	StatusInterrupted TurnStatus = "interrupted"
	StatusFailed      TurnStatus = "failed"
)

// ToolStatus is how a tool call ended (toolResult's status).
type ToolStatus string

// Tool result statuses of toolResult.
const (
	ToolCompleted ToolStatus = "completed"
	ToolFailed    ToolStatus = "failed"
	ToolRejected  ToolStatus = "rejected"
)

// ChangeKind is what a fileChange entry does to its file.
type ChangeKind string

// Kinds of a fileChange entry.
const (
	ChangeAdd    ChangeKind = "add"
	ChangeUpdate ChangeKind = "update"
	ChangeDelete ChangeKind = "delete"
	ChangeMove   ChangeKind = "move"
)

// ChangeStatus is where a file change stands (fileChange's status).
type ChangeStatus string

// Statuses of fileChange.
const (
	// ChangeProposed: shown for review, not applied yet.
	ChangeProposed ChangeStatus = "proposed"
	ChangeApplied  ChangeStatus = "applied"
	ChangeRejected ChangeStatus = "rejected"
	ChangeFailed   ChangeStatus = "failed"
)

// StepStatus is where a plan step stands.
type StepStatus string

// Plan step statuses.
const (
	StepPending    StepStatus = "pending"
	StepInProgress StepStatus = "in_progress"
	StepCompleted  StepStatus = "completed"
)

type TurnStarted struct {
	Prompt string `json:"prompt"`
	// Mode is "plan" for a turn that runs in plan mode, empty otherwise.
	Mode string `json:"mode,omitempty"`
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

// ToolCall announces a call. For a tool of an MCP server, Tool is the
// tool's own name there and Server names the server.
type ToolCall struct {
	CallID    string          `json:"callId"`
	Tool      string          `json:"tool"`
	Kind      ToolKind        `json:"kind"`
	Title     string          `json:"title"`
	Arguments json.RawMessage `json:"arguments"`
	Server    string          `json:"server,omitempty"`
}

type ExecOutput struct {
	CallID string `json:"callId"`
	Stream string `json:"stream"`
	Chunk  string `json:"chunk"`
}

// ToolProgress is how far a running call has come, as its MCP server
// tells (notifications/progress): Progress rises; Total is 0 when
// unknown; Message is one line, visible-safe.
type ToolProgress struct {
	CallID   string  `json:"callId"`
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Text is the progress as a line: "3/10 message", "3 message" without a
// total.
func (p ToolProgress) Text() string {
	s := strconv.FormatFloat(p.Progress, 'f', -1, 64)
	if p.Total > 0 {
		s += "/" + strconv.FormatFloat(p.Total, 'f', -1, 64)
	}
	if p.Message != "" {
		s += " " + p.Message
	}
	return s
}

// ToolResult ends a call; Tool and Server as in its ToolCall.
type ToolResult struct {
	CallID     string     `json:"callId"`
	Tool       string     `json:"tool"`
	Status     ToolStatus `json:"status"`
	Output     string     `json:"output"`
	DurationMs int64      `json:"durationMs"`
	Server     string     `json:"server,omitempty"`
}

type FileChangeEntry struct {
	URI       string     `json:"uri"`
	Kind      ChangeKind `json:"kind"`
	NewURI    string     `json:"newUri,omitempty"`
	Additions int        `json:"additions"`
	Deletions int        `json:"deletions"`
}

type FileChange struct {
	CallID  string            `json:"callId"`
	Changes []FileChangeEntry `json:"changes"`
	Diff    string            `json:"diff"`
	Status  ChangeStatus      `json:"status"`
}

type PlanStep struct {
	Step   string     `json:"step"`
	Status StepStatus `json:"status"`
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
	// Total is the session's use so far, this response included.
	Total *UsageTotal `json:"total,omitempty"`
	// ContextTokens is what the next request will carry: this request's
	// input and what the model added to it.
	ContextTokens int64 `json:"contextTokens,omitempty"`
	ContextWindow int64 `json:"contextWindow,omitempty"`
	// RateLimits are the provider's limits left after this response,
	// when it reports them.
	RateLimits *RateLimits `json:"rateLimits,omitempty"`
}

// RateLimits are a provider's rate limits left, from its x-ratelimit-*
// headers; a field the provider did not send is left out.
type RateLimits struct {
	RemainingRequests *int64 `json:"remainingRequests,omitempty"`
	RemainingTokens   *int64 `json:"remainingTokens,omitempty"`
	ResetRequestsMs   *int64 `json:"resetRequestsMs,omitempty"`
	ResetTokensMs     *int64 `json:"resetTokensMs,omitempty"`
	// LimitRequests and LimitTokens are the limits themselves, so a
	// client can say what share is left.
	LimitRequests *int64 `json:"limitRequests,omitempty"`
	LimitTokens   *int64 `json:"limitTokens,omitempty"`
}

// LowestPercent is the smallest share left of a limit whose size is
// known, in percent, and false when none is.
func (r *RateLimits) LowestPercent() (float64, bool) {
	if r == nil {
		return 0, false
	}
	best, ok := 100.0, false
	for _, p := range [][2]*int64{{r.RemainingRequests, r.LimitRequests}, {r.RemainingTokens, r.LimitTokens}} {
		if p[0] != nil && p[1] != nil && *p[1] > 0 {
			best, ok = min(best, 100*float64(*p[0])/float64(*p[1])), true
		}
	}
	return best, ok
}

// UsageTotal is a session's token use.
type UsageTotal struct {
	InputTokens       int64 `json:"inputTokens"`
	CachedInputTokens int64 `json:"cachedInputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	ReasoningTokens   int64 `json:"reasoningTokens"`
}

// Add adds one response's use.
func (t *UsageTotal) Add(u Usage) {
	t.InputTokens += u.InputTokens
	t.CachedInputTokens += u.CachedInputTokens
	t.OutputTokens += u.OutputTokens
	t.ReasoningTokens += u.ReasoningTokens
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
	Status      TurnStatus `json:"status"`
	Error       string     `json:"error,omitempty"`
	LastMessage string     `json:"lastMessage,omitempty"`
	Diff        string     `json:"diff"`
}

func (TurnStarted) EventType() Type    { return TypeTurnStarted }
func (MessageDelta) EventType() Type   { return TypeMessageDelta }
func (Message) EventType() Type        { return TypeMessage }
func (ReasoningDelta) EventType() Type { return TypeReasoningDelta }
func (Reasoning) EventType() Type      { return TypeReasoning }
func (ToolCall) EventType() Type       { return TypeToolCall }
func (ExecOutput) EventType() Type     { return TypeExecOutput }
func (ToolProgress) EventType() Type   { return TypeToolProgress }
func (ToolResult) EventType() Type     { return TypeToolResult }
func (FileChange) EventType() Type     { return TypeFileChange }
func (Plan) EventType() Type           { return TypePlan }
func (Approval) EventType() Type       { return TypeApproval }
func (Usage) EventType() Type          { return TypeUsage }
func (Retry) EventType() Type          { return TypeRetry }
func (Compacted) EventType() Type      { return TypeCompacted }
func (TurnCompleted) EventType() Type  { return TypeTurnCompleted }
