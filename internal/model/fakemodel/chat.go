package fakemodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"
)

// streamChat streams reply as Chat Completions chunks: a first chunk with
// the role, reasoning as reasoning_content deltas (the way llama.cpp and
// vLLM send it; summary parts separated by a blank line), text as content
// deltas, calls as tool_calls deltas (a custom tool call as a function call
// with arguments {"input": ...}), a chunk with the finish_reason, a usage
// chunk when stream_options.include_usage is set, then [DONE].
func streamChat(s *sse, req *Request, reply *Reply) {
	c := newChatStream(s, req, reply)
	c.chunk([]byte(`{"role":"assistant","content":""}`))
	calls := 0
	for i := range reply.Items {
		it := &reply.Items[i]
		switch it.Type {
		case TypeMessage:
			key := `{"content":`
			if it.Refusal {
				key = `{"refusal":`
			}
			for _, t := range it.Text {
				c.delta(key, t)
			}
		case TypeReasoning:
			for j, part := range append(slices.Clone(it.Summary), it.RawReasoning...) {
				if j > 0 {
					c.delta(`{"reasoning_content":`, "\n\n")
				}
				for _, t := range part {
					c.delta(`{"reasoning_content":`, t)
				}
			}
		case TypeFunctionCall, TypeCustomToolCall:
			c.toolCall(it, calls, callID(it, req.Seq, i))
			calls++
		default:
			panic(fmt.Sprintf("fakemodel: unknown item type %q", it.Type))
		}
	}
	if e := reply.Failed; e != nil || reply.ErrorEvent != nil {
		if e == nil {
			e = reply.ErrorEvent
		}
		b, _ := json.Marshal(map[string]*APIError{"error": e})
		s.open("")
		s.raw("", b)
		s.closeEvent()
		return
	}
	c.finish(reply, calls)
	if opts, _ := req.JSON["stream_options"].(map[string]any); opts != nil {
		if include, _ := opts["include_usage"].(bool); include {
			c.usage(req, reply)
		}
	}
	s.open("")
	s.lit("[DONE]")
	s.closeEvent()
}

// chatStream writes the chunks of one completion.
type chatStream struct {
	s *sse
	// prefix starts every chunk: the id, object, created, model and
	// fingerprint, up to choice 0's delta.
	prefix []byte
}

// chunkSuffix ends a chunk after its delta.
const chunkSuffix = `,"logprobs":null,"finish_reason":null}]}`

func newChatStream(s *sse, req *Request, reply *Reply) *chatStream {
	id := reply.ID
	if id == "" {
		id = fmt.Sprintf("chatcmpl-%d", req.Seq)
	}
	prefix := []byte(`{"id":`)
	prefix = appendJSONString(prefix, id)
	prefix = append(prefix, `,"object":"chat.completion.chunk","created":`...)
	prefix = strconv.AppendInt(prefix, time.Now().Unix(), 10)
	prefix = append(prefix, `,"model":`...)
	prefix = appendJSONString(prefix, stringField(req.JSON, "model"))
	prefix = append(prefix, `,"system_fingerprint":"fakemodel","choices":[{"index":0,"delta":`...)
	return &chatStream{s: s, prefix: prefix}
}

// chunk writes one chunk whose delta is the JSON object delta.
func (c *chatStream) chunk(delta []byte) {
	c.s.open("")
	c.s.raw("", c.prefix)
	c.s.raw("", delta)
	c.s.lit(chunkSuffix)
	c.s.closeEvent()
}

// delta writes a chunk whose delta has one string field: key is its
// opening (`{"content":`), v its value.
func (c *chatStream) delta(key, v string) {
	c.s.open("")
	c.s.raw("", c.prefix)
	c.s.lit(key)
	c.s.quoted(v)
	c.s.lit("}" + chunkSuffix)
	c.s.closeEvent()
}

// toolCall writes the call it as the index-th tool call: a chunk with its
// id and name, then its arguments in chunks.
func (c *chatStream) toolCall(it *Item, index int, id string) {
	chunks := it.Arguments
	if it.Type == TypeCustomToolCall {
		b, _ := json.Marshal(map[string]string{"input": text(it.Input)})
		chunks = Split(string(b), max(len(it.Input), 1))
	}
	head := []byte(`{"tool_calls":[{"index":` + strconv.Itoa(index) + `,"id":`)
	head = appendJSONString(head, id)
	head = append(head, `,"type":"function","function":{"name":`...)
	head = appendJSONString(head, it.Name)
	head = append(head, `,"arguments":""}}]}`...)
	c.chunk(head)
	argHead := []byte(`{"tool_calls":[{"index":` + strconv.Itoa(index) + `,"function":{"arguments":`)
	for _, a := range chunks {
		c.s.open("")
		c.s.raw("", c.prefix)
		c.s.raw("", argHead)
		c.s.quoted(a)
		c.s.lit(`}}]}` + chunkSuffix)
		c.s.closeEvent()
	}
}

// finish writes the chunk with the finish_reason.
func (c *chatStream) finish(reply *Reply, calls int) {
	reason := "stop"
	switch {
	case reply.Incomplete != "":
		reason = "length"
	case calls > 0:
		reason = "tool_calls"
	}
	c.s.open("")
	c.s.raw("", c.prefix)
	c.s.lit(`{},"logprobs":null,"finish_reason":`)
	c.s.quoted(reason)
	c.s.lit(`}]}`)
	c.s.closeEvent()
}

// usage writes the usage chunk, which has no choices.
func (c *chatStream) usage(req *Request, reply *Reply) {
	u := usage(reply, req)
	b, _ := json.Marshal(map[string]any{
		"prompt_tokens":             u.InputTokens,
		"completion_tokens":         u.OutputTokens,
		"total_tokens":              u.TotalTokens,
		"prompt_tokens_details":     map[string]int64{"cached_tokens": u.InputTokensDetails.CachedTokens},
		"completion_tokens_details": map[string]int64{"reasoning_tokens": u.OutputTokensDetails.ReasoningTokens},
	})
	c.s.open("")
	c.s.raw("", c.prefix[:len(c.prefix)-len(`[{"index":0,"delta":`)])
	c.s.lit(`[],"usage":`)
	c.s.raw("", b)
	c.s.lit("}")
	c.s.closeEvent()
}
