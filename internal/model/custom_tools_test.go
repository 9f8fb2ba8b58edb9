package model

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// patchGrammar stands for the apply_patch Lark grammar the agent offers.
const patchGrammar = "start: begin_patch hunk+ end_patch\nbegin_patch: \"*** Begin Patch\" LF"

// A custom tool offered as a function, on Chat Completions (always) and on
// the Responses API for a model that takes function tools only: the
// function carries the grammar in its description and an `input` string
// parameter; the history's custom call goes out as a function call; the
// model's function call comes back, in ItemDone and in the response, as
// the custom tool call it stands for.
func TestCustomToolsOfferedAsFunctions(t *testing.T) {
	const patch = "*** Begin Patch\n*** Add File: a.txt\n+\"hi\"\n*** End Patch"
	for _, tc := range []struct {
		wire string
		// tools and calls find the function tools and the history's
		// calls in the request body.
		tool func(body map[string]any) map[string]any
		call func(body map[string]any) map[string]any
	}{
		{WireChat,
			func(body map[string]any) map[string]any { return nth(body["tools"], 0)["function"].(map[string]any) },
			func(body map[string]any) map[string]any {
				return nth(nth(body["messages"], 1)["tool_calls"], 0)["function"].(map[string]any)
			}},
		{WireResponses,
			func(body map[string]any) map[string]any { return nth(body["tools"], 0) },
			func(body map[string]any) map[string]any { return nth(body["input"], 1) }},
	} {
		t.Run(tc.wire, func(t *testing.T) {
			srv := newFake(t, fakemodel.Answer(fakemodel.FunctionCall("call_new", "apply_patch", `{"input":"`+jsonString(patch)+`"}`)))
			c := newClient(t, srv, tc.wire)
			req := &Request{
				Model: "local-model",
				Input: []Item{
					{Type: ItemMessage, Role: RoleUser, Text: "add a file"},
					{Type: ItemCustomToolCall, CallID: "call_old", Name: "apply_patch", Input: "*** Begin Patch\n*** End Patch"},
					{Type: ItemCustomToolCallOutput, CallID: "call_old", Output: "nothing to do"},
				},
				Tools:             []Tool{{Type: ToolCustom, Name: "apply_patch", Description: "Edit files.", Grammar: &Grammar{Syntax: "lark", Definition: patchGrammar}}},
				FunctionToolsOnly: tc.wire == WireResponses,
			}
			var rec recorder
			resp, err := c.Stream(context.Background(), req, rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			body := srv.Requests()[0].JSON
			tool := tc.tool(body)
			wantDesc := "Edit files.\n\nPass the raw input in the `input` field; it must match this lark grammar:\n" + patchGrammar
			if tool["name"] != "apply_patch" || tool["description"] != wantDesc {
				t.Errorf("tool on the wire: %v\nwant the description %q", tool, wantDesc)
			}
			jsonEqual(t, "parameters", tool["parameters"], string(customInputSchema))
			if tc.wire == WireResponses && tool["type"] != "function" {
				t.Errorf("tool type %v, want function", tool["type"])
			}
			call := tc.call(body)
			if call["name"] != "apply_patch" || call["arguments"] != `{"input":"*** Begin Patch\n*** End Patch"}` {
				t.Errorf("history call on the wire: %v", call)
			}
			if tc.wire == WireResponses {
				jsonEqual(t, "history output", nth(body["input"], 2), `{"type":"function_call_output","call_id":"call_old","output":"nothing to do"}`)
			}

			want := Item{Type: ItemCustomToolCall, CallID: "call_new", Name: "apply_patch", Input: patch}
			if len(resp.Output) != 1 {
				t.Fatalf("output %+v", resp.Output)
			}
			got := resp.Output[0]
			want.ID = got.ID
			if !reflect.DeepEqual(got, want) {
				t.Errorf("response item\n got %+v\nwant %+v", got, want)
			}
			done := rec.of(ItemDone)
			if len(done) != 1 || !reflect.DeepEqual(*done[0].Item, want) {
				t.Errorf("ItemDone %+v, want %+v", done, want)
			}
		})
	}
}

// Without FunctionToolsOnly the Responses API gets the custom tool as
// such, and a function call of another tool stays a function call.
func TestFunctionCallsOfFunctionToolsStayFunctionCalls(t *testing.T) {
	req := &Request{Tools: []Tool{{Type: ToolFunction, Name: "shell"}, {Type: ToolCustom, Name: "apply_patch"}}}
	call := Item{Type: ItemFunctionCall, CallID: "c", Name: "shell", Arguments: `{"input":"ls"}`}
	if got := fromFunctionCall(req, call); !reflect.DeepEqual(got, call) {
		t.Errorf("fromFunctionCall changed a call of a function tool: %+v", got)
	}
	if got := asFunctionTool(req.Tools[0]); !reflect.DeepEqual(got, req.Tools[0]) {
		t.Errorf("asFunctionTool changed a function tool: %+v", got)
	}
	if got := asFunctionTool(req.Tools[1]); got.Description != "Pass the raw input in the `input` field." {
		t.Errorf("description of a custom tool without grammar or description: %q", got.Description)
	}
}

// nth is element i of a decoded JSON array of objects.
func nth(v any, i int) map[string]any {
	a, _ := v.([]any)
	if i >= len(a) {
		return map[string]any{}
	}
	m, _ := a[i].(map[string]any)
	return m
}

// jsonString is s as the inside of a JSON string literal.
func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}
