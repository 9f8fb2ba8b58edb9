package fakemodel

import (
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// Step is one scripted model request: the reply to stream, optionally
// preceded by failures.
type Step struct {
	// Name identifies the step in Request.Step and in error messages.
	Name string
	// Match, when set, limits the step to the requests it returns true
	// for; see Server for how steps are chosen. It runs with the server's
	// lock held and must not call the Server.
	Match func(*Request) bool
	// Failures are served one per request before the reply: a step with
	// two failures fails the first two requests it is chosen for and
	// serves its reply to the third.
	Failures []Failure
	// Reply is streamed once the failures are used up; the step is then
	// done.
	Reply Reply
	// Respond, when set, builds the reply from the request instead (it
	// runs without the server's lock).
	Respond func(*Request) Reply
	// Gate, when set, holds the reply's stream after Gate's number of
	// events until the test releases it.
	Gate *Gate
	// Pace is a pause before each event (each flushed on its own), so a
	// scripted answer streams at a human pace; zero streams as fast as
	// the connection takes it.
	Pace time.Duration
}

// Reply is a scripted model response.
type Reply struct {
	// ID is the response id; empty means "resp_<request number>".
	ID string
	// Items are the output items, streamed in order.
	Items []Item
	// Usage is reported with the completed response; the zero Usage is
	// replaced by an estimate (a token per 4 bytes of request body and
	// of output).
	Usage Usage

	// At most one of the following ends the stream instead of
	// response.completed (Chat Completions: instead of the final chunks).
	//
	// Failed sends response.failed with this error (Chat: an error chunk).
	Failed *APIError
	// Incomplete sends response.incomplete with this reason (Chat:
	// finish_reason "length").
	Incomplete string
	// ErrorEvent sends an error event (Chat: an error chunk).
	ErrorEvent *APIError
	// Header is sent with the stream's response (rate-limit headers).
	Header http.Header
}

// Item types.
const (
	TypeMessage        = "message"
	TypeFunctionCall   = "function_call"
	TypeCustomToolCall = "custom_tool_call"
	TypeReasoning      = "reasoning"
	// TypeWebSearchCall is a search by the hosted web_search tool
	// (Responses API only).
	TypeWebSearchCall = "web_search_call"
)

// Item is a scripted output item. Each streamed text is a list of chunks,
// one delta event per chunk.
type Item struct {
	Type string
	// ID is the item id; empty means one made of the type and the
	// request and item numbers.
	ID string

	// Message: the assistant text, in chunks, and its phase. Refusal
	// sends the text as the model's refusal to answer (a refusal content
	// part; Chat: refusal deltas).
	Text    []string
	Phase   string
	Refusal bool

	// Calls. CallID empty means "call_<request>_<item>".
	CallID    string
	Name      string
	Arguments []string // function_call arguments, in chunks
	Input     []string // custom_tool_call input, in chunks

	// Reasoning: summary parts, each in chunks, and the opaque content.
	Summary          [][]string
	EncryptedContent string
	// RawReasoning: the reasoning's own text, as open-weight models
	// served over the Responses API (gpt-oss) give it: reasoning_text
	// content parts, each in chunks.
	RawReasoning [][]string

	// Web search: what was searched for.
	Query string
}

// Usage is the token accounting of a reply.
type Usage struct {
	InputTokens       int64
	CachedInputTokens int64
	OutputTokens      int64
	ReasoningTokens   int64
}

// APIError is an error as the server reports it.
type APIError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Type    string `json:"type,omitempty"`
}

// FailMode says how a stream fails.
type FailMode int

const (
	// Disconnect resets the connection mid-stream.
	Disconnect FailMode = iota + 1
	// Truncate ends the stream cleanly but early: no response.completed,
	// no [DONE].
	Truncate
	// Stall keeps the connection open and silent until the client goes
	// away or the server closes.
	Stall
)

// Failure is one failed request of a step: an HTTP error status, or a
// stream that fails after some events.
type Failure struct {
	// Status, when not zero, answers with this HTTP status, Header and
	// Body instead of a stream.
	Status int
	Header http.Header
	// Body is the error body; empty means an OpenAI-style JSON error.
	Body string

	// Mode and AfterEvents make the stream fail after that many SSE
	// events (counting every event: response.created is the first).
	Mode        FailMode
	AfterEvents int
	// Reply, when set, is streamed instead of the step's reply, so a
	// retried request can replay something else.
	Reply *Reply
}

// HTTPError is a failure answering with status.
func HTTPError(status int) Failure { return Failure{Status: status} }

// RateLimited is a 429 failure with a Retry-After header (seconds or an
// HTTP date).
func RateLimited(retryAfter string) Failure {
	return Failure{Status: http.StatusTooManyRequests, Header: http.Header{"Retry-After": {retryAfter}}}
}

// DisconnectAfter is a stream reset after k events.
func DisconnectAfter(k int) Failure { return Failure{Mode: Disconnect, AfterEvents: k} }

// TruncateAfter is a stream that ends cleanly after k events.
func TruncateAfter(k int) Failure { return Failure{Mode: Truncate, AfterEvents: k} }

// StallAfter is a stream that goes silent after k events.
func StallAfter(k int) Failure { return Failure{Mode: Stall, AfterEvents: k} }

// Times repeats f n times.
func Times(n int, f Failure) []Failure {
	fs := make([]Failure, n)
	for i := range fs {
		fs[i] = f
	}
	return fs
}

// Gate holds a stream after a number of events until released, so a test
// can act at a known point of a stream (cancel it, say).
type Gate struct {
	after       int
	reached     chan struct{}
	release     chan struct{}
	reachOnce   sync.Once
	releaseOnce sync.Once
}

// NewGate returns a gate that holds a stream after afterEvents events.
func NewGate(afterEvents int) *Gate {
	return &Gate{after: afterEvents, reached: make(chan struct{}), release: make(chan struct{})}
}

// Reached is closed when a stream has reached the gate (its events so far
// flushed to the client).
func (g *Gate) Reached() <-chan struct{} { return g.reached }

// Release lets the held stream go on. It may be called before the stream
// reaches the gate, and more than once.
func (g *Gate) Release() { g.releaseOnce.Do(func() { close(g.release) }) }

func (g *Gate) reach() { g.reachOnce.Do(func() { close(g.reached) }) }

// Answer is a step that replies with items.
func Answer(items ...Item) Step { return Step{Reply: Reply{Items: items}} }

// Say is a step that answers text, streamed word by word.
func Say(text string) Step { return Answer(Message(Words(text)...)) }

// Message is an assistant message streamed as these chunks.
func Message(chunks ...string) Item { return Item{Type: TypeMessage, Text: chunks} }

// MessageN is an assistant message of text streamed in n chunks.
func MessageN(text string, n int) Item { return Message(Split(text, n)...) }

// FunctionCall is a function call with JSON arguments (streamed in a few
// chunks).
func FunctionCall(callID, name, arguments string) Item {
	return Item{Type: TypeFunctionCall, CallID: callID, Name: name, Arguments: Split(arguments, 3)}
}

// CustomToolCall is a call of a freeform tool with raw input (streamed in
// a few chunks).
func CustomToolCall(callID, name, input string) Item {
	return Item{Type: TypeCustomToolCall, CallID: callID, Name: name, Input: Split(input, 3)}
}

// Reasoning is a reasoning item with an encrypted content and summary
// parts (each streamed word by word).
func Reasoning(encryptedContent string, summary ...string) Item {
	it := Item{Type: TypeReasoning, EncryptedContent: encryptedContent}
	for _, s := range summary {
		it.Summary = append(it.Summary, Words(s))
	}
	return it
}

// RawReasoning is a reasoning item whose text comes as reasoning_text
// content parts (each streamed word by word), as gpt-oss served over the
// Responses API sends its chain of thought, with no summary.
func RawReasoning(parts ...string) Item {
	it := Item{Type: TypeReasoning}
	for _, s := range parts {
		it.RawReasoning = append(it.RawReasoning, Words(s))
	}
	return it
}

// WebSearch is a search the hosted web_search tool made for query.
func WebSearch(query string) Item { return Item{Type: TypeWebSearchCall, Query: query} }

// Split cuts s into n chunks of about the same number of runes (fewer when
// s is shorter); the chunks join back to s.
func Split(s string, n int) []string {
	runes := utf8.RuneCountInString(s)
	if n > runes {
		n = runes
	}
	if n <= 1 {
		return []string{s}
	}
	chunks := make([]string, 0, n)
	per, extra := runes/n, runes%n
	for i := range n {
		size := per
		if i < extra {
			size++
		}
		end := 0
		for range size {
			_, w := utf8.DecodeRuneInString(s[end:])
			end += w
		}
		chunks = append(chunks, s[:end])
		s = s[end:]
	}
	return chunks
}

// Words cuts s after each run of spaces, the way models stream text; the
// chunks join back to s.
func Words(s string) []string {
	var chunks []string
	for s != "" {
		i := strings.IndexByte(s, ' ')
		if i < 0 {
			chunks = append(chunks, s)
			break
		}
		for i < len(s) && s[i] == ' ' {
			i++
		}
		chunks = append(chunks, s[:i])
		s = s[i:]
	}
	if chunks == nil {
		chunks = []string{""}
	}
	return chunks
}

// text joins chunks.
func text(chunks []string) string { return strings.Join(chunks, "") }
