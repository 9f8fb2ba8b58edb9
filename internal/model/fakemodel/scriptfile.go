package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Script is the JSON form of a script, read by ParseScript and by the
// fakemodel command (see the package doc for an example):
//
//	{"steps": [Step, ...]}
//
// Step:
//
//	name          string   names the step in the request log
//	bodyContains  string   serve only requests whose body contains it
//	                       (routes concurrent sessions; empty: any)
//	failures      [Failure] served one per request before the reply
//	reply         Reply
//	paceMs        number   pause before each streamed event
//
// Failure: {"status": 429, "header": {"Retry-After": "1"}, "body": "..."}
// answers with an HTTP error; {"mode": "disconnect"|"truncate"|"stall",
// "afterEvents": n} breaks the stream after n events.
//
// Reply: {"id", "items": [Item], "usage": {"inputTokens",
// "cachedInputTokens", "outputTokens", "reasoningTokens"}, "failed":
// {"code", "message"}, "incomplete": "reason", "errorEvent": {"code",
// "message"}}.
//
// Item, by type:
//
//	{"type": "message", "text": "streamed word by word"}
//	{"type": "function_call", "callId": "c1", "name": "shell",
//	 "arguments": {"command": ["ls"]}}          (an object, or a JSON string)
//	{"type": "custom_tool_call", "callId": "c2", "name": "apply_patch",
//	 "input": "*** Begin Patch\n..."}
//	{"type": "reasoning", "summary": ["part", ...], "encryptedContent": "..."}
//	{"type": "web_search_call", "query": "what was searched"}  (Responses API only)
//
// "chunks": ["a", "b"] streams a message's text, a call's arguments or
// input in exactly these pieces instead.
type Script struct {
	Steps []ScriptStep `json:"steps"`
}

// ScriptStep is a Step in JSON.
type ScriptStep struct {
	Name         string          `json:"name,omitempty"`
	BodyContains string          `json:"bodyContains,omitempty"`
	Failures     []ScriptFailure `json:"failures,omitempty"`
	Reply        ScriptReply     `json:"reply"`
	PaceMs       int             `json:"paceMs,omitempty"`
}

// ScriptFailure is a Failure in JSON.
type ScriptFailure struct {
	Status      int               `json:"status,omitempty"`
	Header      map[string]string `json:"header,omitempty"`
	Body        string            `json:"body,omitempty"`
	Mode        string            `json:"mode,omitempty"`
	AfterEvents int               `json:"afterEvents,omitempty"`
}

// ScriptReply is a Reply in JSON.
type ScriptReply struct {
	ID         string       `json:"id,omitempty"`
	Items      []ScriptItem `json:"items"`
	Usage      *ScriptUsage `json:"usage,omitempty"`
	Failed     *APIError    `json:"failed,omitempty"`
	Incomplete string       `json:"incomplete,omitempty"`
	ErrorEvent *APIError    `json:"errorEvent,omitempty"`
	// Header is sent with the stream's response.
	Header map[string]string `json:"header,omitempty"`
}

// ScriptUsage is a Usage in JSON.
type ScriptUsage struct {
	InputTokens       int64 `json:"inputTokens"`
	CachedInputTokens int64 `json:"cachedInputTokens"`
	OutputTokens      int64 `json:"outputTokens"`
	ReasoningTokens   int64 `json:"reasoningTokens"`
}

// ScriptItem is an Item in JSON.
type ScriptItem struct {
	Type             string          `json:"type"`
	ID               string          `json:"id,omitempty"`
	Text             string          `json:"text,omitempty"`
	Phase            string          `json:"phase,omitempty"`
	Refusal          bool            `json:"refusal,omitempty"`
	CallID           string          `json:"callId,omitempty"`
	Name             string          `json:"name,omitempty"`
	Arguments        json.RawMessage `json:"arguments,omitempty"`
	Input            string          `json:"input,omitempty"`
	Summary          []string        `json:"summary,omitempty"`
	RawReasoning     []string        `json:"rawReasoning,omitempty"`
	EncryptedContent string          `json:"encryptedContent,omitempty"`
	Chunks           []string        `json:"chunks,omitempty"`
	Query            string          `json:"query,omitempty"`
}

// ParseScript reads a JSON script (see Script). Unknown fields are errors,
// so a misspelt key does not silently change the script.
func ParseScript(r io.Reader) ([]Step, error) {
	dec := json.NewDecoder(r)
	dec.DisallowUnknownFields()
	var s Script
	if err := dec.Decode(&s); err != nil {
		return nil, fmt.Errorf("fakemodel script: %w", err)
	}
	steps := make([]Step, 0, len(s.Steps))
	for i, ss := range s.Steps {
		st, err := ss.step()
		if err != nil {
			return nil, fmt.Errorf("fakemodel script: step %d: %w", i+1, err)
		}
		steps = append(steps, st)
	}
	return steps, nil
}

func (ss ScriptStep) step() (Step, error) {
	st := Step{Name: ss.Name, Pace: time.Duration(ss.PaceMs) * time.Millisecond}
	if ss.BodyContains != "" {
		needle := []byte(ss.BodyContains)
		st.Match = func(r *Request) bool { return bytes.Contains(r.Body, needle) }
	}
	for _, f := range ss.Failures {
		ff := Failure{Status: f.Status, Body: f.Body, AfterEvents: f.AfterEvents}
		if len(f.Header) > 0 {
			ff.Header = http.Header{}
			for k, v := range f.Header {
				ff.Header.Set(k, v)
			}
		}
		switch f.Mode {
		case "":
			if f.Status == 0 {
				return st, fmt.Errorf("a failure needs a status or a mode")
			}
		case "disconnect":
			ff.Mode = Disconnect
		case "truncate":
			ff.Mode = Truncate
		case "stall":
			ff.Mode = Stall
		default:
			return st, fmt.Errorf("unknown failure mode %q (want disconnect, truncate or stall)", f.Mode)
		}
		st.Failures = append(st.Failures, ff)
	}
	r := ss.Reply
	st.Reply = Reply{ID: r.ID, Failed: r.Failed, Incomplete: r.Incomplete, ErrorEvent: r.ErrorEvent}
	if u := r.Usage; u != nil {
		st.Reply.Usage = Usage(*u)
	}
	if len(r.Header) > 0 {
		st.Reply.Header = http.Header{}
		for k, v := range r.Header {
			st.Reply.Header.Set(k, v)
		}
	}
	for j, it := range r.Items {
		item, err := it.item()
		if err != nil {
			return st, fmt.Errorf("item %d: %w", j+1, err)
		}
		st.Reply.Items = append(st.Reply.Items, item)
	}
	return st, nil
}

func (it ScriptItem) item() (Item, error) {
	chunks := func(s string, split func(string) []string) []string {
		if it.Chunks != nil {
			return it.Chunks
		}
		return split(s)
	}
	thirds := func(s string) []string { return Split(s, 3) }
	switch it.Type {
	case TypeMessage:
		return Item{Type: TypeMessage, ID: it.ID, Phase: it.Phase, Refusal: it.Refusal, Text: chunks(it.Text, Words)}, nil
	case TypeFunctionCall:
		var compact bytes.Buffer
		if len(it.Arguments) > 0 {
			if err := json.Compact(&compact, it.Arguments); err != nil {
				return Item{}, err
			}
		}
		args := compact.String() // as models send them: no spaces
		var s string
		if json.Unmarshal(it.Arguments, &s) == nil {
			args = s // arguments given as a JSON string
		}
		if args == "" && it.Chunks == nil {
			args = "{}"
		}
		if it.Name == "" {
			return Item{}, fmt.Errorf("a function_call needs a name")
		}
		return Item{Type: TypeFunctionCall, ID: it.ID, CallID: it.CallID, Name: it.Name, Arguments: chunks(args, thirds)}, nil
	case TypeCustomToolCall:
		if it.Name == "" {
			return Item{}, fmt.Errorf("a custom_tool_call needs a name")
		}
		return Item{Type: TypeCustomToolCall, ID: it.ID, CallID: it.CallID, Name: it.Name, Input: chunks(it.Input, thirds)}, nil
	case TypeReasoning:
		out := Item{Type: TypeReasoning, ID: it.ID, EncryptedContent: it.EncryptedContent}
		for _, s := range it.Summary {
			out.Summary = append(out.Summary, Words(s))
		}
		for _, s := range it.RawReasoning {
			out.RawReasoning = append(out.RawReasoning, Words(s))
		}
		return out, nil
	case TypeWebSearchCall:
		return Item{Type: TypeWebSearchCall, ID: it.ID, Query: it.Query}, nil
	}
	return Item{}, fmt.Errorf("unknown item type %q (want %s)", it.Type,
		strings.Join([]string{TypeMessage, TypeFunctionCall, TypeCustomToolCall, TypeReasoning, TypeWebSearchCall}, ", "))
}
