package model

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// jsonEqual fails the test unless got (decoded JSON) equals the JSON text
// want.
func jsonEqual(t *testing.T, what string, got any, want string) {
	t.Helper()
	var w any
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatalf("%s: bad expectation: %v", what, err)
	}
	if !reflect.DeepEqual(got, w) {
		g, _ := json.MarshalIndent(got, "", "  ")
		e, _ := json.MarshalIndent(w, "", "  ")
		t.Errorf("%s:\ngot  %s\nwant %s", what, g, e)
	}
}

// fullRequest exercises every kind of input item and tool.
func fullRequest() *Request {
	return &Request{
		Model:        "gpt-test",
		Instructions: "be brief",
		Input: []Item{
			{Type: ItemMessage, Role: RoleDeveloper, Text: "env: linux"},
			{Type: ItemMessage, Role: RoleUser, Text: "what is this?", Images: []string{"data:image/png;base64,AAAA"}},
			{Type: ItemReasoning, ID: "rs_old", Summary: []string{"looked"}, EncryptedContent: "ENC1"},
			{Type: ItemMessage, Role: RoleAssistant, Text: "Let me look.", Phase: "commentary"},
			{Type: ItemFunctionCall, ID: "fc_old", CallID: "call_1", Name: "read_file", Arguments: `{"path":"a.go"}`},
			{Type: ItemFunctionCallOutput, CallID: "call_1", Output: "package a"},
			{Type: ItemCustomToolCall, CallID: "call_2", Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch"},
			{Type: ItemCustomToolCallOutput, CallID: "call_2", Output: "done", Images: []string{"data:image/png;base64,BBBB"}},
			{Type: ItemFunctionCallOutput, CallID: "call_3", Output: "shot", Images: []string{"data:image/png;base64,CCCC"}},
		},
		Tools: []Tool{
			{Type: ToolFunction, Name: "read_file", Description: "Read a file.",
				Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`)},
			{Type: ToolFunction, Name: "list"},
			{Type: ToolCustom, Name: "apply_patch", Description: "Patch files.", Grammar: &Grammar{Syntax: "lark", Definition: "start: /.+/"}},
			{Type: ToolCustom, Name: "note"},
		},
		ReasoningEffort:  "high",
		ReasoningSummary: "auto",
		PromptCacheKey:   "conv-1",
	}
}

func TestResponsesRequestBody(t *testing.T) {
	srv := newFake(t, fakemodel.Say("ok"))
	c := newClient(t, srv, WireResponses, func(c *Config) { c.APIKey = "sk-test" })
	if _, err := c.Stream(context.Background(), fullRequest(), func(Event) {}); err != nil {
		t.Fatal(err)
	}
	req := srv.Requests()[0]
	if req.Path != "/v1/responses" {
		t.Errorf("path %q", req.Path)
	}
	if got := req.Header.Get("Authorization"); got != "Bearer sk-test" {
		t.Errorf("Authorization %q", got)
	}
	body := req.JSON
	for key, want := range map[string]any{
		"model": "gpt-test", "instructions": "be brief", "store": false, "stream": true,
		"parallel_tool_calls": true, "tool_choice": "auto", "prompt_cache_key": "conv-1",
	} {
		if !reflect.DeepEqual(body[key], want) {
			t.Errorf("%s = %#v, want %#v", key, body[key], want)
		}
	}
	jsonEqual(t, "include", body["include"], `["reasoning.encrypted_content"]`)
	jsonEqual(t, "reasoning", body["reasoning"], `{"effort":"high","summary":"auto"}`)
	jsonEqual(t, "input", body["input"], `[
		{"type":"message","role":"developer","content":"env: linux"},
		{"type":"message","role":"user","content":[
			{"type":"input_text","text":"what is this?"},
			{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"auto"}]},
		{"type":"reasoning","summary":[{"type":"summary_text","text":"looked"}],"encrypted_content":"ENC1"},
		{"type":"message","role":"assistant","content":"Let me look.","phase":"commentary"},
		{"type":"function_call","call_id":"call_1","name":"read_file","arguments":"{\"path\":\"a.go\"}"},
		{"type":"function_call_output","call_id":"call_1","output":"package a"},
		{"type":"custom_tool_call","call_id":"call_2","name":"apply_patch","input":"*** Begin Patch\n*** End Patch"},
		{"type":"custom_tool_call_output","call_id":"call_2","output":[
			{"type":"input_text","text":"done"},
			{"type":"input_image","image_url":"data:image/png;base64,BBBB","detail":"auto"}]},
		{"type":"function_call_output","call_id":"call_3","output":[
			{"type":"input_text","text":"shot"},
			{"type":"input_image","image_url":"data:image/png;base64,CCCC","detail":"auto"}]}
	]`)
	jsonEqual(t, "tools", body["tools"], `[
		{"type":"function","name":"read_file","description":"Read a file.","strict":false,
		 "parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}},
		{"type":"function","name":"list","strict":false,"parameters":{"type":"object","properties":{}}},
		{"type":"custom","name":"apply_patch","description":"Patch files.",
		 "format":{"type":"grammar","syntax":"lark","definition":"start: /.+/"}},
		{"type":"custom","name":"note"}
	]`)
	// The schema reaches the server with the caller's key order.
	if !strings.Contains(string(req.Body), `"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}`) {
		t.Errorf("schema not passed through verbatim: %s", req.Body)
	}
}

func TestResponsesRequestWithoutReasoning(t *testing.T) {
	srv := newFake(t, fakemodel.Say("ok"))
	c := newClient(t, srv, WireResponses)
	req := &Request{Model: "m", Input: []Item{{Type: ItemMessage, Role: RoleUser, Text: "hi"}}}
	if _, err := c.Stream(context.Background(), req, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	got := srv.Requests()[0]
	for _, key := range []string{"reasoning", "instructions", "prompt_cache_key", "tools"} {
		if _, ok := got.JSON[key]; ok {
			t.Errorf("%s sent: %v", key, got.JSON[key])
		}
	}
	if h := got.Header.Get("Authorization"); h != "" {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

func TestResponsesBadRequest(t *testing.T) {
	c, err := New(Config{BaseURL: "http://127.0.0.1:1/v1"})
	if err != nil {
		t.Fatal(err)
	}
	for name, req := range map[string]*Request{
		"item type":  {Input: []Item{{Type: "bogus"}}},
		"role":       {Input: []Item{{Type: ItemMessage, Role: "narrator"}}},
		"schema":     {Tools: []Tool{{Type: ToolFunction, Name: "f", Parameters: json.RawMessage(`{`)}}},
		"grammar":    {Tools: []Tool{{Type: ToolCustom, Name: "f", Grammar: &Grammar{Syntax: "ebnf"}}}},
		"tool type":  {Tools: []Tool{{Type: "web", Name: "f"}}},
		"empty role": {Input: []Item{{Type: ItemMessage}}},
	} {
		if _, err := c.Stream(context.Background(), req, func(Event) {}); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestResponsesStream(t *testing.T) {
	srv := newFake(t, fakemodel.Step{Reply: fakemodel.Reply{
		Items: []fakemodel.Item{
			fakemodel.Reasoning("ENC-42", "Reading the file.", "Then patching."),
			{Type: fakemodel.TypeMessage, Text: []string{"I'll ", "fix ", "it."}, Phase: "commentary"},
			fakemodel.FunctionCall("call_a", "read_file", `{"path":"main.go"}`),
			fakemodel.CustomToolCall("call_b", "apply_patch", "*** Begin Patch\n*** End Patch\n"),
		},
		Usage: fakemodel.Usage{InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 80, ReasoningTokens: 64},
	}})
	c := newClient(t, srv, WireResponses)
	var rec recorder
	resp, err := c.Stream(context.Background(), &Request{Model: "m", Input: []Item{{Type: ItemMessage, Role: RoleUser, Text: "fix"}}}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ID != "resp_1" {
		t.Errorf("response id %q", resp.ID)
	}
	if want := (Usage{InputTokens: 1200, CachedInputTokens: 1000, OutputTokens: 80, ReasoningTokens: 64}); resp.Usage != want {
		t.Errorf("usage %+v, want %+v", resp.Usage, want)
	}
	want := []Item{
		{Type: ItemReasoning, ID: "rs_1_0", Summary: []string{"Reading the file.", "Then patching."}, EncryptedContent: "ENC-42"},
		{Type: ItemMessage, ID: "msg_1_1", Role: RoleAssistant, Text: "I'll fix it.", Phase: "commentary"},
		{Type: ItemFunctionCall, ID: "fc_1_2", CallID: "call_a", Name: "read_file", Arguments: `{"path":"main.go"}`},
		{Type: ItemCustomToolCall, ID: "ctc_1_3", CallID: "call_b", Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch\n"},
	}
	if !reflect.DeepEqual(resp.Output, want) {
		t.Errorf("output\n got %+v\nwant %+v", resp.Output, want)
	}
	if got := rec.deltas(TextDelta, "msg_1_1"); got != "I'll fix it." {
		t.Errorf("text deltas %q", got)
	}
	if got := rec.deltas(ReasoningDelta, "rs_1_0"); got != "Reading the file.\n\nThen patching." {
		t.Errorf("reasoning deltas %q", got)
	}
	if got := len(rec.of(TextDelta)); got != 3 {
		t.Errorf("%d text deltas, want 3 (one per chunk)", got)
	}
	var done []Item
	for _, e := range rec.of(ItemDone) {
		if e.ItemID != e.Item.ID {
			t.Errorf("ItemDone event id %q, item id %q", e.ItemID, e.Item.ID)
		}
		done = append(done, *e.Item)
	}
	if !reflect.DeepEqual(done, want) {
		t.Errorf("ItemDone items\n got %+v\nwant %+v", done, want)
	}
	// Deltas come before their item's ItemDone.
	finished := map[string]bool{}
	for _, e := range rec.events {
		switch e.Kind {
		case ItemDone:
			finished[e.ItemID] = true
		case TextDelta, ReasoningDelta:
			if finished[e.ItemID] {
				t.Errorf("delta %q after ItemDone of %s", e.Delta, e.ItemID)
			}
		}
	}
}

// The reasoning item comes back with its encrypted content, and the
// history round-trips into the next request.
func TestResponsesReasoningRoundTrip(t *testing.T) {
	srv := newFake(t,
		fakemodel.Answer(fakemodel.Reasoning("gAAAA-secret", "Thinking."), fakemodel.FunctionCall("call_1", "ls", `{}`)),
		fakemodel.Say("Done."),
	)
	c := newClient(t, srv, WireResponses)
	history := []Item{{Type: ItemMessage, Role: RoleUser, Text: "list"}}
	resp, err := c.Stream(context.Background(), &Request{Model: "m", Input: history}, func(Event) {})
	if err != nil {
		t.Fatal(err)
	}
	history = append(history, resp.Output...)
	history = append(history, Item{Type: ItemFunctionCallOutput, CallID: "call_1", Output: "a.go"})
	if _, err := c.Stream(context.Background(), &Request{Model: "m", Input: history}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "second input", srv.Requests()[1].JSON["input"], `[
		{"type":"message","role":"user","content":"list"},
		{"type":"reasoning","summary":[{"type":"summary_text","text":"Thinking."}],"encrypted_content":"gAAAA-secret"},
		{"type":"function_call","call_id":"call_1","name":"ls","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_1","output":"a.go"}
	]`)
}

// TestResponsesRawReasoning: the reasoning's own text, as gpt-oss served
// over the Responses API streams it (reasoning_text deltas in content
// parts, no summary), reaches the client as reasoning deltas, its parts
// apart, is kept on the item and goes back as it came.
func TestResponsesRawReasoning(t *testing.T) {
	srv := newFake(t,
		fakemodel.Answer(fakemodel.RawReasoning("The user wants a list.", "Call ls."), fakemodel.FunctionCall("call_1", "ls", `{}`)),
		fakemodel.Say("Done."),
	)
	c := newClient(t, srv, WireResponses)
	var rec recorder
	history := []Item{{Type: ItemMessage, Role: RoleUser, Text: "list"}}
	resp, err := c.Stream(context.Background(), &Request{Model: "gpt-oss", Input: history}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.deltas(ReasoningDelta, "rs_1_0"); got != "The user wants a list.\n\nCall ls." {
		t.Errorf("reasoning deltas %q", got)
	}
	want := Item{Type: ItemReasoning, ID: "rs_1_0", ReasoningText: []string{"The user wants a list.", "Call ls."}}
	if len(resp.Output) != 2 || !reflect.DeepEqual(resp.Output[0], want) {
		t.Fatalf("output %+v", resp.Output)
	}
	history = append(history, resp.Output...)
	history = append(history, Item{Type: ItemFunctionCallOutput, CallID: "call_1", Output: "a.go"})
	if _, err := c.Stream(context.Background(), &Request{Model: "gpt-oss", Input: history}, func(Event) {}); err != nil {
		t.Fatal(err)
	}
	jsonEqual(t, "second input", srv.Requests()[1].JSON["input"], `[
		{"type":"message","role":"user","content":"list"},
		{"type":"reasoning","summary":[],"content":[{"type":"reasoning_text","text":"The user wants a list."},{"type":"reasoning_text","text":"Call ls."}]},
		{"type":"function_call","call_id":"call_1","name":"ls","arguments":"{}"},
		{"type":"function_call_output","call_id":"call_1","output":"a.go"}
	]`)
}

func TestResponsesServerReportedFailures(t *testing.T) {
	tests := []struct {
		name     string
		reply    fakemodel.Reply
		wantText []string
		retried  bool
	}{
		{"failed", fakemodel.Reply{Failed: &fakemodel.APIError{Code: "invalid_prompt", Message: "Your prompt was flagged."}},
			[]string{"Your prompt was flagged.", "invalid_prompt"}, false},
		{"incomplete", fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("partial")}, Incomplete: "max_output_tokens"},
			[]string{"incomplete", "max_output_tokens"}, false},
		{"error event", fakemodel.Reply{ErrorEvent: &fakemodel.APIError{Code: "context_length_exceeded", Message: "Your input exceeds the context window."}},
			[]string{"exceeds the context window", "context_length_exceeded"}, false},
		{"server error", fakemodel.Reply{Failed: &fakemodel.APIError{Code: "server_error", Message: "The server had an error."}},
			[]string{"The server had an error.", "after 2 attempts"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			steps := []fakemodel.Step{{Reply: tt.reply}}
			if tt.retried {
				steps = append(steps, fakemodel.Step{Reply: tt.reply})
			}
			srv := newFake(t, steps...)
			c := newClient(t, srv, WireResponses, func(c *Config) { c.StreamMaxRetries = 1 })
			var rec recorder
			_, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
			if err == nil {
				t.Fatal("no error")
			}
			for _, w := range tt.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
			var me *Error
			if !errors.As(err, &me) {
				t.Errorf("error %T is not a *model.Error", err)
			}
			if got := len(rec.of(Retrying)) > 0; got != tt.retried {
				t.Errorf("retried = %v, want %v", got, tt.retried)
			}
		})
	}
}
