package model

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

func TestChatRequestBody(t *testing.T) {
	srv := newFake(t, fakemodel.Say("ok"))
	c := newClient(t, srv, WireChat)
	req := &Request{
		Model:        "qwen3",
		Instructions: "be brief",
		Input: []Item{
			{Type: ItemMessage, Role: RoleDeveloper, Text: "env: linux"},
			{Type: ItemMessage, Role: RoleUser, Text: "look", Images: []string{"data:image/png;base64,AAAA"}},
			{Type: ItemReasoning, Summary: []string{"hmm"}, EncryptedContent: "ENC"},
			{Type: ItemMessage, Role: RoleAssistant, Text: "Reading both."},
			{Type: ItemFunctionCall, CallID: "c1", Name: "read_file", Arguments: `{"path":"a"}`},
			{Type: ItemFunctionCall, CallID: "c2", Name: "read_file", Arguments: `{"path":"b"}`},
			{Type: ItemFunctionCallOutput, CallID: "c1", Output: "A", Images: []string{"data:image/png;base64,IMG"}},
			{Type: ItemFunctionCallOutput, CallID: "c2", Output: "B"},
			{Type: ItemCustomToolCall, CallID: "c3", Name: "apply_patch", Input: "*** Begin Patch"},
			{Type: ItemCustomToolCallOutput, CallID: "c3", Output: "applied"},
			{Type: ItemMessage, Role: RoleUser, Text: "thanks"},
		},
		Tools: []Tool{
			{Type: ToolFunction, Name: "read_file", Description: "Read.", Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}}}`)},
			{Type: ToolCustom, Name: "apply_patch", Description: "Patch.", Grammar: &Grammar{Syntax: "lark", Definition: "start: x"}},
		},
		ReasoningEffort: "low",
		PromptCacheKey:  "conv",
	}
	if _, err := c.Stream(context.Background(), req, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	if got.Path != "/v1/chat/completions" {
		t.Errorf("path %q", got.Path)
	}
	body := got.JSON
	for key, want := range map[string]any{
		"model": "qwen3", "stream": true, "tool_choice": "auto", "parallel_tool_calls": true, "reasoning_effort": "low",
	} {
		if !reflect.DeepEqual(body[key], want) {
			t.Errorf("%s = %#v, want %#v", key, body[key], want)
		}
	}
	jsonEqual(t, "stream_options", body["stream_options"], `{"include_usage":true}`)
	jsonEqual(t, "messages", body["messages"], `[
		{"role":"system","content":"be brief"},
		{"role":"system","content":"env: linux"},
		{"role":"user","content":[
			{"type":"text","text":"look"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]},
		{"role":"assistant","content":"Reading both.","tool_calls":[
			{"id":"c1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"a\"}"}},
			{"id":"c2","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"b\"}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"A"},
		{"role":"tool","tool_call_id":"c2","content":"B"},
		{"role":"user","content":[
			{"type":"text","text":"Images from the tool output above:"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,IMG"}}]},
		{"role":"assistant","tool_calls":[
			{"id":"c3","type":"function","function":{"name":"apply_patch","arguments":"{\"input\":\"*** Begin Patch\"}"}}]},
		{"role":"tool","tool_call_id":"c3","content":"applied"},
		{"role":"user","content":"thanks"}
	]`)
	tools, _ := body["tools"].([]any)
	if len(tools) != 2 {
		t.Fatalf("tools: %v", body["tools"])
	}
	jsonEqual(t, "function tool", tools[0], `{"type":"function","function":{"name":"read_file","description":"Read.","strict":false,
		"parameters":{"type":"object","properties":{"path":{"type":"string"}}}}}`)
	custom, _ := tools[1].(map[string]any)["function"].(map[string]any)
	if custom["name"] != "apply_patch" || !strings.Contains(custom["description"].(string), "start: x") {
		t.Errorf("custom tool as function: %v", custom)
	}
	jsonEqual(t, "custom tool parameters", custom["parameters"], string(customInputSchema))
}

func TestChatRequestWithoutTools(t *testing.T) {
	srv := newFake(t, fakemodel.Say("ok"))
	c := newClient(t, srv, WireChat)
	if _, err := c.Stream(context.Background(), &Request{Model: "m", Input: []Item{{Type: ItemMessage, Role: RoleUser, Text: "hi"}}}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].JSON
	for _, key := range []string{"tools", "tool_choice", "parallel_tool_calls", "reasoning_effort"} {
		if _, ok := body[key]; ok {
			t.Errorf("%s sent without tools: %v", key, body[key])
		}
	}
	jsonEqual(t, "messages", body["messages"], `[{"role":"user","content":"hi"}]`)
}

func TestChatStream(t *testing.T) {
	srv := newFake(t, fakemodel.Step{Reply: fakemodel.Reply{
		Items: []fakemodel.Item{
			fakemodel.Reasoning("dropped", "Let me think."),
			fakemodel.Message("Reading ", "two files."),
			fakemodel.FunctionCall("call_x", "read_file", `{"path":"a.go"}`),
			fakemodel.FunctionCall("call_y", "read_file", `{"path":"b.go"}`),
			fakemodel.CustomToolCall("call_z", "apply_patch", "*** Begin Patch\n\"quoted\"\n"),
		},
		Usage: fakemodel.Usage{InputTokens: 50, CachedInputTokens: 10, OutputTokens: 20, ReasoningTokens: 5},
	}})
	c := newClient(t, srv, WireChat)
	req := &Request{Model: "m", Tools: []Tool{{Type: ToolFunction, Name: "read_file"}, {Type: ToolCustom, Name: "apply_patch"}}}
	var rec recorder
	resp, err := c.Stream(context.Background(), req, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ID != "chatcmpl-1" {
		t.Errorf("id %q", resp.ID)
	}
	if want := (Usage{InputTokens: 50, CachedInputTokens: 10, OutputTokens: 20, ReasoningTokens: 5}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	if len(resp.Output) != 5 {
		t.Fatalf("output: %+v", resp.Output)
	}
	ids := map[string]bool{}
	for i, it := range resp.Output {
		if it.ID == "" || ids[it.ID] {
			t.Errorf("item %d: id %q missing or repeated", i, it.ID)
		}
		ids[it.ID] = true
		it.ID = ""
		resp.Output[i] = it
	}
	want := []Item{
		{Type: ItemReasoning, Summary: []string{"Let me think."}},
		{Type: ItemMessage, Role: RoleAssistant, Text: "Reading two files."},
		{Type: ItemFunctionCall, CallID: "call_x", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{Type: ItemFunctionCall, CallID: "call_y", Name: "read_file", Arguments: `{"path":"b.go"}`},
		{Type: ItemCustomToolCall, CallID: "call_z", Name: "apply_patch", Input: "*** Begin Patch\n\"quoted\"\n"},
	}
	if !reflect.DeepEqual(resp.Output, want) {
		t.Errorf("output\n got %+v\nwant %+v", resp.Output, want)
	}
	textIDs := rec.deltaItems(TextDelta)
	if len(textIDs) != 1 || rec.deltas(TextDelta, textIDs[0]) != "Reading two files." {
		t.Errorf("text deltas: %+v", rec.of(TextDelta))
	}
	if got := rec.of(ItemDone); len(got) != 5 || got[1].ItemID != textIDs[0] {
		t.Errorf("ItemDone events: %+v", got)
	}
	reasonIDs := rec.deltaItems(ReasoningDelta)
	if len(reasonIDs) != 1 || rec.deltas(ReasoningDelta, reasonIDs[0]) != "Let me think." {
		t.Errorf("reasoning deltas: %+v", rec.of(ReasoningDelta))
	}
}

func TestChatServerError(t *testing.T) {
	srv := newFake(t, fakemodel.Step{Reply: fakemodel.Reply{
		Items:  []fakemodel.Item{fakemodel.Message("par", "tial")},
		Failed: &fakemodel.APIError{Code: "context_length_exceeded", Message: "the request exceeds the available context size"},
	}})
	c := newClient(t, srv, WireChat)
	_, err := c.Stream(context.Background(), &Request{Model: "m"}, func(Event) {})
	if err == nil || !strings.Contains(err.Error(), "exceeds the available context size") {
		t.Fatalf("error %v", err)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d requests; a context overflow is not retried", len(srv.Requests()))
	}
}

func TestCustomInput(t *testing.T) {
	for args, want := range map[string]string{
		`{"input":"x\ny"}`: "x\ny",
		`{"input":""}`:     "",
		`not json`:         "not json",
		`{"other":1}`:      `{"other":1}`,
	} {
		if got := customInput(args); got != want {
			t.Errorf("customInput(%q) = %q, want %q", args, got, want)
		}
	}
}

// Some local servers send tool calls without ids, and reasoning as
// "reasoning" (Ollama); the client makes ids that are unique and uses both.
func TestChatLocalServerQuirks(t *testing.T) {
	chunks := []string{
		`{"id":"x","choices":[{"index":0,"delta":{"role":"assistant","reasoning":"hm"}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"name":"ls","arguments":"{}"}}]}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"name":"ls","arguments":"{\"a\":"}}]}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"1}"}}]}}]}`,
		`{"id":"x","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, c := range chunks {
			fmt.Fprintf(w, "data: %s\n\n", c)
		}
		// No [DONE]: the finish_reason completes the response.
	}))
	defer srv.Close()
	c, err := New(Config{WireAPI: WireChat, BaseURL: srv.URL + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	var rec recorder
	resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Output) != 3 || resp.Output[0].Type != ItemReasoning || resp.Output[0].Summary[0] != "hm" {
		t.Fatalf("output %+v", resp.Output)
	}
	a, b := resp.Output[1], resp.Output[2]
	if a.CallID == "" || b.CallID == "" || a.CallID == b.CallID {
		t.Errorf("call ids %q, %q", a.CallID, b.CallID)
	}
	if a.Arguments != "{}" || b.Arguments != `{"a":1}` {
		t.Errorf("arguments %q, %q", a.Arguments, b.Arguments)
	}
	if ids := rec.deltaItems(ReasoningDelta); len(ids) != 1 || ids[0] != resp.Output[0].ID {
		t.Errorf("reasoning deltas %+v", rec.of(ReasoningDelta))
	}
}
