package model

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// Output positions of a chat completion: its reasoning (the
// reasoning_content of local servers), its text, then its tool calls in
// index order.
const (
	chatReasoningPos = 0
	chatMessagePos   = 1
	chatCallsPos     = 2
)

// chatCall is a tool call being assembled from its deltas.
type chatCall struct {
	index     int
	id, name  string
	arguments strings.Builder
}

// chatChunk is a chunk of a Chat Completions stream: only the fields
// agent-ls uses.
type chatChunk struct {
	ID    string `json:"id"`
	Usage *struct {
		PromptTokens        int64 `json:"prompt_tokens"`
		PromptTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
		CompletionTokens        int64 `json:"completion_tokens"`
		CompletionTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"completion_tokens_details"`
	} `json:"usage"`
	Choices []struct {
		Index        int            `json:"index"`
		Delta        chatChunkDelta `json:"delta"`
		FinishReason string         `json:"finish_reason"`
	} `json:"choices"`
	// Error, at the top level and not null, ends the stream with it.
	Error json.RawMessage `json:"error"`
}

type chatChunkDelta struct {
	Content string `json:"content"`
	Refusal string `json:"refusal"`
	// Reasoning text as local servers send it: reasoning_content
	// (llama.cpp, vLLM) or reasoning (Ollama).
	ReasoningContent json.RawMessage `json:"reasoning_content"`
	Reasoning        json.RawMessage `json:"reasoning"`
	ToolCalls        []struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Function struct {
			Name      string `json:"name"`
			Arguments string `json:"arguments"`
		} `json:"function"`
	} `json:"tool_calls"`
}

// runChat makes one attempt on Chat Completions. Content deltas become
// TextDelta, reasoning_content (or reasoning) deltas ReasoningDelta; the
// items are finished, and ItemDone emitted, when a choice reports its
// finish_reason. A stream without a finish_reason is truncated.
func (c *client) runChat(ctx context.Context, body []byte, req *Request, at *attempt) (*Response, error) {
	res, err := c.api.post(ctx, body, at)
	if err != nil {
		return nil, err
	}
	rp := at.replay
	resp := &Response{}
	acc := chatAccum{rp: rp}
	err = events(res, at, func(data []byte, unterminated bool) (bool, error) {
		var chunk chatChunk
		if err := json.Unmarshal(data, &chunk); err != nil {
			return false, badEvent(data, unterminated, err)
		}
		if hasError(chunk.Error) {
			return false, streamError(data, chunk.Error)
		}
		acc.add(resp, &chunk)
		return false, nil
	})
	text, reasoning, calls, finished := &acc.text, &acc.reasoning, acc.calls, acc.finished // what the chunks carried
	if err != nil {
		return nil, err
	}
	if !finished {
		return nil, errTruncated
	}

	// The items, in output order, under the caller's ids.
	finish := func(pos int, it Item) {
		s := rp.item(pos, it.Type, "")
		it.ID = s.id
		rp.done(s, it)
		resp.Output = append(resp.Output, it)
	}
	if reasoning.Len() > 0 {
		finish(chatReasoningPos, Item{Type: ItemReasoning, Summary: []string{reasoning.String()}})
	}
	if text.Len() > 0 {
		finish(chatMessagePos, Item{Type: ItemMessage, Role: RoleAssistant, Text: text.String(), Refused: acc.refused})
	}
	for i, call := range sortCalls(calls) {
		pos := chatCallsPos + i
		callID := call.id
		if callID == "" {
			// Some local servers send no call ids; the id must still be
			// unique and stable across retries.
			callID = fmt.Sprintf("call_%s_%d", rp.nonce, i)
		}
		finish(pos, fromFunctionCall(req, Item{Type: ItemFunctionCall, CallID: callID, Name: call.name, Arguments: call.arguments.String()}))
	}
	return resp, nil
}

// chatAccum gathers what the chunks of one completion carry, forwarding
// the text and reasoning deltas as they come.
type chatAccum struct {
	rp              *replay
	text, reasoning strings.Builder
	calls           []*chatCall
	finished        bool
	refused         bool // the text holds a refusal
}

// add takes one chunk: its id and usage into resp, choice 0's deltas
// into the accumulated text, reasoning and tool calls.
func (a *chatAccum) add(resp *Response, chunk *chatChunk) {
	rp := a.rp
	if resp.ID == "" {
		resp.ID = chunk.ID
	}
	if u := chunk.Usage; u != nil {
		resp.Usage = Usage{
			InputTokens:       u.PromptTokens,
			CachedInputTokens: u.PromptTokensDetails.CachedTokens,
			OutputTokens:      u.CompletionTokens,
			ReasoningTokens:   u.CompletionTokensDetails.ReasoningTokens,
		}
	}
	for i := range chunk.Choices {
		ch := &chunk.Choices[i]
		if ch.Index != 0 {
			continue
		}
		d := &ch.Delta
		if r := reasoningDelta(d); r != "" {
			a.reasoning.WriteString(r)
			rp.delta(rp.item(chatReasoningPos, ItemReasoning, ""), ReasoningDelta, r)
		}
		if d.Refusal != "" {
			a.refused = true
		}
		if t := d.Content + d.Refusal; t != "" {
			a.text.WriteString(t)
			rp.delta(rp.item(chatMessagePos, ItemMessage, ""), TextDelta, t)
		}
		for _, tc := range d.ToolCalls {
			call := findCall(a.calls, tc.Index)
			if call == nil {
				call = &chatCall{index: tc.Index}
				a.calls = append(a.calls, call)
			}
			if call.id == "" {
				call.id = tc.ID
			}
			if call.name == "" {
				call.name = tc.Function.Name
			}
			call.arguments.WriteString(tc.Function.Arguments)
		}
		if ch.FinishReason != "" {
			a.finished = true
		}
	}
}

// reasoningDelta returns the reasoning text of a delta: local servers send
// it as reasoning_content (llama.cpp, vLLM) or reasoning (Ollama).
func reasoningDelta(d *chatChunkDelta) string {
	for _, raw := range []json.RawMessage{d.ReasoningContent, d.Reasoning} {
		var s string
		if len(raw) > 0 && json.Unmarshal(raw, &s) == nil && s != "" {
			return s
		}
	}
	return ""
}

func findCall(calls []*chatCall, index int) *chatCall {
	for _, c := range calls {
		if c.index == index {
			return c
		}
	}
	return nil
}

// sortCalls orders calls by their index (servers send them in order; this
// is for those that interleave).
func sortCalls(calls []*chatCall) []*chatCall {
	for i := 1; i < len(calls); i++ {
		for j := i; j > 0 && calls[j].index < calls[j-1].index; j-- {
			calls[j], calls[j-1] = calls[j-1], calls[j]
		}
	}
	return calls
}

func isCustomTool(req *Request, name string) bool {
	for _, t := range req.Tools {
		if t.Name == name {
			return t.Type == ToolCustom
		}
	}
	return false
}

// customInput unwraps the {"input": ...} arguments of a custom tool called
// as a function; arguments of another shape are passed on as they are.
func customInput(args string) string {
	var v struct {
		Input *string `json:"input"`
	}
	if json.Unmarshal([]byte(args), &v) == nil && v.Input != nil {
		return *v.Input
	}
	return args
}
