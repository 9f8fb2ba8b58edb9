package fakemodel

import (
	"encoding/json"
	"fmt"
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
	id := reply.ID
	if id == "" {
		id = fmt.Sprintf("chatcmpl-%d", req.Seq)
	}
	// Every chunk starts the same way.
	prefix := []byte(`{"id":`)
	prefix = appendJSONString(prefix, id)
	prefix = append(prefix, `,"object":"chat.completion.chunk","created":`...)
	prefix = strconv.AppendInt(prefix, time.Now().Unix(), 10)
	prefix = append(prefix, `,"model":`...)
	prefix = appendJSONString(prefix, stringField(req.JSON, "model"))
	prefix = append(prefix, `,"system_fingerprint":"fakemodel","choices":[{"index":0,"delta":`...)
	const suffix = `,"logprobs":null,"finish_reason":null}]}`

	delta := func(key, v string) {
		s.open("")
		s.raw("", prefix)
		s.lit(key)
		s.quoted(v)
		s.lit("}" + suffix)
		s.closeEvent()
	}
	s.open("")
	s.raw("", prefix)
	s.lit(`{"role":"assistant","content":""}` + suffix)
	s.closeEvent()

	calls := 0
	for i := range reply.Items {
		it := &reply.Items[i]
		switch it.Type {
		case TypeMessage:
			for _, c := range it.Text {
				delta(`{"content":`, c)
			}
		case TypeReasoning:
			for j, part := range it.Summary {
				if j > 0 {
					delta(`{"reasoning_content":`, "\n\n")
				}
				for _, c := range part {
					delta(`{"reasoning_content":`, c)
				}
			}
		case TypeFunctionCall, TypeCustomToolCall:
			chunks := it.Arguments
			if it.Type == TypeCustomToolCall {
				b, _ := json.Marshal(map[string]string{"input": text(it.Input)})
				chunks = Split(string(b), max(len(it.Input), 1))
			}
			head := []byte(`{"tool_calls":[{"index":` + strconv.Itoa(calls) + `,"id":`)
			head = appendJSONString(head, callID(it, req.Seq, i))
			head = append(head, `,"type":"function","function":{"name":`...)
			head = appendJSONString(head, it.Name)
			head = append(head, `,"arguments":""}}]}`...)
			s.open("")
			s.raw("", prefix)
			s.raw("", head)
			s.lit(suffix)
			s.closeEvent()
			argHead := []byte(`{"tool_calls":[{"index":` + strconv.Itoa(calls) + `,"function":{"arguments":`)
			for _, c := range chunks {
				s.open("")
				s.raw("", prefix)
				s.raw("", argHead)
				s.quoted(c)
				s.lit(`}}]}` + suffix)
				s.closeEvent()
			}
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
	finish := "stop"
	switch {
	case reply.Incomplete != "":
		finish = "length"
	case calls > 0:
		finish = "tool_calls"
	}
	s.open("")
	s.raw("", prefix)
	s.lit(`{},"logprobs":null,"finish_reason":`)
	s.quoted(finish)
	s.lit(`}]}`)
	s.closeEvent()

	if opts, _ := req.JSON["stream_options"].(map[string]any); opts != nil {
		if include, _ := opts["include_usage"].(bool); include {
			u := usage(reply, req)
			b, _ := json.Marshal(map[string]any{
				"prompt_tokens":             u.InputTokens,
				"completion_tokens":         u.OutputTokens,
				"total_tokens":              u.TotalTokens,
				"prompt_tokens_details":     map[string]int64{"cached_tokens": u.InputTokensDetails.CachedTokens},
				"completion_tokens_details": map[string]int64{"reasoning_tokens": u.OutputTokensDetails.ReasoningTokens},
			})
			s.open("")
			s.raw("", prefix[:len(prefix)-len(`[{"index":0,"delta":`)])
			s.lit(`[],"usage":`)
			s.raw("", b)
			s.lit("}")
			s.closeEvent()
		}
	}
	s.open("")
	s.lit("[DONE]")
	s.closeEvent()
}
