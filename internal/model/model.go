// Package model talks to language models. It turns a model-neutral Request
// into a streaming call on one of two wire APIs (the OpenAI Responses API, or
// Chat Completions for local OpenAI-compatible servers) and turns the wire
// stream back into model-neutral events. Retries, idle timeouts and the
// de-duplication of text replayed by a retried stream live here, so callers
// see one clean stream per request. So does offering a freeform tool as a
// function where the wire or the model cannot take it as such
// (Request.FunctionToolsOnly): callers offer their tools as they are.
//
// The package speaks the wire itself (request bodies as plain structs,
// one POST, its own event-stream reader) rather than through openai-go,
// as it did before, because an editor waits on every start and first
// request: the SDK's package initialisation took 1.3 ms of each start, and
// a process's first request about 5 ms more than now (building and
// encoding a typical body 1.7 ms against 0.4, decoding a typical stream
// 5.8 ms against 1.8; the SDK builds its reflective encoders and decoders
// for the APIs' whole type graph on first use); it also made up half of
// the binary (35 MB of text and rodata against 17 MB without it).
// testdata/wire holds the bodies openai-go sent, which ours must equal.
package model

import (
	"context"
	"encoding/json"
)

// ItemType names a conversation item. The values are the Responses API's.
type ItemType string

const (
	ItemMessage              ItemType = "message"
	ItemReasoning            ItemType = "reasoning"
	ItemFunctionCall         ItemType = "function_call"
	ItemFunctionCallOutput   ItemType = "function_call_output"
	ItemCustomToolCall       ItemType = "custom_tool_call"
	ItemCustomToolCallOutput ItemType = "custom_tool_call_output"
	// ItemWebSearchCall is a search the hosted web_search tool made
	// (Responses API). Nobody answers it: it is kept in the history and
	// sent back as it came, like reasoning.
	ItemWebSearchCall ItemType = "web_search_call"
)

// Roles of message items.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleDeveloper = "developer"
)

// Item is one entry of the conversation history, in either direction.
type Item struct {
	Type ItemType `json:"type"`
	// ID is the provider's item id, when it gave one.
	ID string `json:"id,omitempty"`

	// Message.
	Role string `json:"role,omitempty"`
	Text string `json:"text,omitempty"`
	// Phase labels an assistant message as "commentary" (said while
	// working) or "final_answer", when the provider says; it is sent back
	// with the message on later requests.
	Phase string `json:"phase,omitempty"`
	// Refused: the assistant message is (or holds) the model's refusal
	// to answer rather than an answer.
	Refused bool `json:"refused,omitempty"`
	// Images are data: or https: URLs attached to a user message or a
	// tool output.
	Images []string `json:"images,omitempty"`

	// Calls and their outputs.
	CallID    string `json:"callId,omitempty"`
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments,omitempty"` // function_call
	Input     string `json:"input,omitempty"`     // custom_tool_call
	Output    string `json:"output,omitempty"`    // *_output

	// Reasoning.
	Summary          []string `json:"summary,omitempty"`
	EncryptedContent string   `json:"encryptedContent,omitempty"`
	// ReasoningText is the reasoning's own text, in parts, where a
	// server gives it (gpt-oss over the Responses API: reasoning_text
	// content), sent back as it came.
	ReasoningText []string `json:"reasoningText,omitempty"`

	// Web search: the call's status and its action ({"type":"search",
	// "query":...}) as the provider sent it.
	Status string          `json:"status,omitempty"`
	Action json.RawMessage `json:"action,omitempty"`
}

// ToolType says how a tool is offered to the model.
type ToolType string

const (
	// ToolFunction takes JSON arguments described by a JSON schema.
	ToolFunction ToolType = "function"
	// ToolCustom is a freeform tool: the model writes raw text, optionally
	// constrained by a grammar (Responses API only).
	ToolCustom ToolType = "custom"
)

// Tool is a tool offered to the model.
type Tool struct {
	Type        ToolType
	Name        string
	Description string
	// Parameters is the JSON schema of a function tool's arguments.
	Parameters json.RawMessage
	// Grammar constrains a custom tool's input; nil means free text.
	Grammar *Grammar
}

// Grammar is a custom tool's input grammar.
type Grammar struct {
	Syntax     string // "lark" or "regex"
	Definition string
}

// Request is one model request.
type Request struct {
	Model        string
	Instructions string
	Input        []Item
	Tools        []Tool
	// ReasoningEffort and ReasoningSummary are sent only for reasoning
	// models; empty means not sent.
	ReasoningEffort  string
	ReasoningSummary string
	// Verbosity ("low", "medium", "high") asks a model that supports it
	// for shorter or longer answers; empty means not sent.
	Verbosity string
	// WebSearch offers the hosted web_search tool. Only the Responses API
	// has hosted tools: Chat Completions ignores it.
	WebSearch bool
	// PromptCacheKey groups requests of one conversation for caching.
	PromptCacheKey string
	// FunctionToolsOnly says the model was not trained on freeform tools:
	// custom tools are offered to it as function tools taking one `input`
	// string (their grammar in the description), and its calls of them
	// come back as custom tool calls. Chat Completions, which has no
	// freeform tools, always offers them so.
	FunctionToolsOnly bool
}

// ReasoningEfforts returns the values Request.ReasoningEffort takes, as
// the APIs name them, least effort first.
func ReasoningEfforts() []string {
	return []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}
}

// Usage is the token accounting of one response.
type Usage struct {
	InputTokens       int64
	CachedInputTokens int64
	OutputTokens      int64
	ReasoningTokens   int64
}

// Response is the complete result of one request.
type Response struct {
	ID     string
	Output []Item
	Usage  Usage
	// RateLimits are what the provider's x-ratelimit-* headers said of
	// the limits left; nil when it sent none.
	RateLimits *RateLimits
}

// EventKind is the kind of a streaming event.
type EventKind int

const (
	// TextDelta carries a piece of assistant text for ItemID.
	TextDelta EventKind = iota + 1
	// ReasoningDelta carries a piece of reasoning summary for ItemID.
	ReasoningDelta
	// ItemDone carries a finished output item.
	ItemDone
	// Retrying announces that the request failed and will be retried
	// after Delay.
	Retrying
	// ItemStarted announces an output item the model has begun that the
	// user waits on without deltas: a web_search_call (Item holds its
	// type and status). It comes once per item, before its ItemDone.
	ItemStarted
)

// Event is one streaming event of a request. ItemID is the id the caller
// sees for an output item: it is the same for every event of that item,
// across retries, and equals the ID of the item in ItemDone and in
// Response.Output.
type Event struct {
	Kind   EventKind
	ItemID string
	Delta  string
	Item   *Item
	Retry  *RetryInfo
}

// RetryInfo describes one retry.
type RetryInfo struct {
	// Attempt is the number of the attempt that is about to be made: 2 for
	// the first retry.
	Attempt int
	// DelayMs is how long the client waits before that attempt.
	DelayMs int64
	// Message says what went wrong with the previous attempt.
	Message string
}

// Client streams one request. Events are delivered to emit in order, as
// they arrive, on the calling goroutine; Stream returns once the response is
// complete, the request failed for good, or ctx is done.
type Client interface {
	Stream(ctx context.Context, req *Request, emit func(Event)) (*Response, error)
}
