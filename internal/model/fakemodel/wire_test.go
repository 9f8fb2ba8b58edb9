package fakemodel

import (
	"encoding/json"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestResponsesWireFormat(t *testing.T) {
	srv := New(Step{Reply: Reply{
		Items: []Item{
			Reasoning("ENC", "One two", "Three"),
			{Type: TypeMessage, Text: []string{"Hi ", "\"there\"\n"}, Phase: "final_answer"},
			FunctionCall("call_1", "read_file", `{"path":"a"}`),
			CustomToolCall("call_2", "apply_patch", "*** Begin Patch"),
		},
		Usage: Usage{InputTokens: 10, CachedInputTokens: 4, OutputTokens: 7, ReasoningTokens: 3},
	}})
	defer srv.Close()
	evs := stream(t, srv, "/responses", map[string]any{"model": "gpt-x", "stream": true})

	var types []string
	for i, e := range evs {
		typ, _ := e.json["type"].(string)
		if e.name != typ {
			t.Errorf("event %d: event line %q, type %q", i, e.name, typ)
		}
		if seq := get(e.json, "sequence_number"); seq != float64(i) {
			t.Errorf("event %d: sequence_number %v", i, seq)
		}
		types = append(types, typ)
	}
	want := []string{
		"response.created", "response.in_progress",
		"response.output_item.added",
		"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
		"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta",
		"response.reasoning_summary_text.done", "response.reasoning_summary_part.done",
		"response.output_item.done",
		"response.output_item.added", "response.content_part.added",
		"response.output_text.delta", "response.output_text.delta", "response.output_text.done",
		"response.content_part.done", "response.output_item.done",
		"response.output_item.added",
		"response.function_call_arguments.delta", "response.function_call_arguments.delta", "response.function_call_arguments.delta",
		"response.function_call_arguments.done", "response.output_item.done",
		"response.output_item.added",
		"response.custom_tool_call_input.delta", "response.custom_tool_call_input.delta", "response.custom_tool_call_input.delta",
		"response.custom_tool_call_input.done", "response.output_item.done",
		"response.completed",
	}
	if !slices.Equal(types, want) {
		t.Fatalf("event types\n got %q\nwant %q", types, want)
	}
	// A few payloads in detail.
	if d := evs[15].json; d["delta"] != "Hi " || d["item_id"] != "msg_1_1" || d["output_index"] != 1.0 || d["content_index"] != 0.0 {
		t.Errorf("text delta %v", d)
	}
	if d := evs[17].json; d["text"] != "Hi \"there\"\n" {
		t.Errorf("text done %v", d)
	}
	if d := evs[9].json; d["summary_index"] != 1.0 || d["delta"] != "Three" {
		t.Errorf("summary delta %v", d)
	}
	completed := evs[len(evs)-1].json["response"]
	if get(completed, "status") != "completed" || get(completed, "model") != "gpt-x" || get(completed, "id") != "resp_1" {
		t.Errorf("completed response %v", completed)
	}
	wantOutput := `[
		{"id":"rs_1_0","type":"reasoning","summary":[{"type":"summary_text","text":"One two"},{"type":"summary_text","text":"Three"}],"encrypted_content":"ENC"},
		{"id":"msg_1_1","type":"message","status":"completed","role":"assistant","phase":"final_answer",
		 "content":[{"type":"output_text","text":"Hi \"there\"\n","annotations":[],"logprobs":[]}]},
		{"id":"fc_1_2","type":"function_call","status":"completed","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"a\"}"},
		{"id":"ctc_1_3","type":"custom_tool_call","status":"completed","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch"}
	]`
	var wo any
	_ = json.Unmarshal([]byte(wantOutput), &wo)
	if got := get(completed, "output"); !reflect.DeepEqual(got, wo) {
		g, _ := json.Marshal(got)
		t.Errorf("output\n got %s\nwant %s", g, wantOutput)
	}
	u := get(completed, "usage")
	if get(u, "input_tokens") != 10.0 || get(u, "input_tokens_details", "cached_tokens") != 4.0 ||
		get(u, "output_tokens") != 7.0 || get(u, "output_tokens_details", "reasoning_tokens") != 3.0 || get(u, "total_tokens") != 17.0 {
		t.Errorf("usage %v", u)
	}
	// Each output_item.done carries the finished item.
	if got := get(evs[19].json, "item"); !reflect.DeepEqual(got, get(wo, 1)) {
		t.Errorf("output_item.done item %v", got)
	}
}

func TestResponsesEndings(t *testing.T) {
	srv := New(
		Step{Reply: Reply{Failed: &APIError{Code: "server_error", Message: "boom"}}},
		Step{Reply: Reply{Incomplete: "max_output_tokens"}},
		Step{Reply: Reply{ErrorEvent: &APIError{Code: "rate_limit_exceeded", Message: "slow down"}}},
	)
	defer srv.Close()
	body := map[string]any{"stream": true}
	last := func() map[string]any {
		evs := stream(t, srv, "/responses", body)
		return evs[len(evs)-1].json
	}
	if e := last(); e["type"] != "response.failed" || get(e, "response", "error", "message") != "boom" || get(e, "response", "status") != "failed" {
		t.Errorf("failed: %v", e)
	}
	if e := last(); e["type"] != "response.incomplete" || get(e, "response", "incomplete_details", "reason") != "max_output_tokens" {
		t.Errorf("incomplete: %v", e)
	}
	if e := last(); e["type"] != "error" || e["code"] != "rate_limit_exceeded" || e["message"] != "slow down" {
		t.Errorf("error event: %v", e)
	}
}

func TestChatWireFormat(t *testing.T) {
	reply := Reply{Items: []Item{
		Reasoning("", "Hmm"),
		Message("Hel", "lo"),
		FunctionCall("call_1", "read_file", `{"path":"a"}`),
		CustomToolCall("call_2", "apply_patch", "x\"y"),
	}, Usage: Usage{InputTokens: 3, OutputTokens: 2}}
	srv := New(Step{Reply: reply}, Step{Reply: reply})
	defer srv.Close()

	evs := stream(t, srv, "/chat/completions", map[string]any{"model": "llama", "stream": true, "stream_options": map[string]any{"include_usage": true}})
	if last := evs[len(evs)-1]; last.data != "[DONE]" {
		t.Fatalf("last event %q, want [DONE]", last.data)
	}
	evs = evs[:len(evs)-1]
	var content, reasoning string
	args := map[float64]string{}
	ids := map[float64]string{}
	var finish []any
	for i, e := range evs {
		if e.json["object"] != "chat.completion.chunk" || e.json["id"] != "chatcmpl-1" || e.json["model"] != "llama" {
			t.Errorf("chunk %d: %s", i, e.data)
		}
		if get(e.json, "choices", 0) == nil {
			continue
		}
		d := get(e.json, "choices", 0, "delta")
		if s, ok := get(d, "content").(string); ok {
			content += s
		}
		if s, ok := get(d, "reasoning_content").(string); ok {
			reasoning += s
		}
		for _, tc := range mustList(get(d, "tool_calls")) {
			idx := get(tc, "index").(float64)
			if id, ok := get(tc, "id").(string); ok {
				ids[idx] = id
			}
			args[idx] += get(tc, "function", "arguments").(string)
		}
		if f := get(e.json, "choices", 0, "finish_reason"); f != nil {
			finish = append(finish, f)
		}
	}
	if content != "Hello" || reasoning != "Hmm" {
		t.Errorf("content %q, reasoning %q", content, reasoning)
	}
	if ids[0] != "call_1" || ids[1] != "call_2" || args[0] != `{"path":"a"}` || args[1] != `{"input":"x\"y"}` {
		t.Errorf("tool calls: ids %v, args %v", ids, args)
	}
	if !reflect.DeepEqual(finish, []any{"tool_calls"}) {
		t.Errorf("finish reasons %v", finish)
	}
	usage := evs[len(evs)-1].json
	if get(usage, "usage", "prompt_tokens") != 3.0 || get(usage, "usage", "completion_tokens") != 2.0 || len(mustList(get(usage, "choices"))) != 0 {
		t.Errorf("usage chunk %v", usage)
	}

	// Without include_usage there is no usage chunk.
	evs = stream(t, srv, "/chat/completions", map[string]any{"stream": true})
	for _, e := range evs {
		if _, ok := e.json["usage"]; ok {
			t.Errorf("usage sent without include_usage: %s", e.data)
		}
	}
}

func mustList(v any) []any { l, _ := v.([]any); return l }

func TestSplitAndWords(t *testing.T) {
	for _, s := range []string{"", "a", "héllo wörld", "日本語のテキスト", strings.Repeat("xy", 50)} {
		for _, n := range []int{0, 1, 2, 3, 7, 100} {
			chunks := Split(s, n)
			if strings.Join(chunks, "") != s {
				t.Errorf("Split(%q, %d) = %q", s, n, chunks)
			}
			if n > 0 && len(chunks) > n {
				t.Errorf("Split(%q, %d): %d chunks", s, n, len(chunks))
			}
			for _, c := range chunks {
				if !utf8Valid(c) {
					t.Errorf("Split(%q, %d) cut a rune: %q", s, n, c)
				}
			}
		}
	}
	if got := Words("Hello,  big world"); !slices.Equal(got, []string{"Hello,  ", "big ", "world"}) {
		t.Errorf("Words = %q", got)
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\x00") == s }

func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\s`, "nl\ncr\rtab\t", "\x00\x01\x1f\x7f", "日本 ü 🎉", "<&>", "\u2028"} {
		var got string
		if err := json.Unmarshal(appendJSONString(nil, s), &got); err != nil || got != s {
			t.Errorf("%q: round trip %q, %v", s, got, err)
		}
	}
	var got string
	if err := json.Unmarshal(appendJSONString(nil, "a\xffb"), &got); err != nil || got != "a\uFFFDb" {
		t.Errorf("invalid UTF-8: %q, %v", got, err)
	}
}
