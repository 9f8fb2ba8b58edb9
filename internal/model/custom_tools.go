package model

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Custom (freeform) tools offered as function tools.
//
// Chat Completions has no freeform tools, and a model not trained on them
// (Request.FunctionToolsOnly) does better with a function: such a tool is
// offered as a function taking one `input` string, its grammar spelled out
// in the description so the model still learns the format, and a call of
// it comes back as a custom_tool_call, so callers never see the wrapping.
// The history is sent back the same way: a custom_tool_call goes out as a
// function call with {"input": ...} and its output as a function output.

// customInputSchema is the parameters of a custom tool offered as a
// function tool.
var customInputSchema = json.RawMessage(`{"type":"object","properties":{"input":{"type":"string","description":"The raw input of the tool."}},"required":["input"],"additionalProperties":false}`)

// asFunctionTool returns custom tool t as the function tool that stands for
// it; other tools are returned as they are.
func asFunctionTool(t Tool) Tool {
	if t.Type != ToolCustom {
		return t
	}
	desc := strings.TrimRight(t.Description, "\n")
	if desc != "" {
		desc += "\n\n"
	}
	if g := t.Grammar; g != nil {
		desc += fmt.Sprintf("Pass the raw input in the `input` field; it must match this %s grammar:\n%s", g.Syntax, g.Definition)
	} else {
		desc += "Pass the raw input in the `input` field."
	}
	return Tool{Type: ToolFunction, Name: t.Name, Description: desc, Parameters: customInputSchema}
}

// asFunctionItem returns a custom tool call or its output as the function
// call or output that stands for it; other items are returned as they are.
func asFunctionItem(it Item) Item {
	switch it.Type {
	case ItemCustomToolCall:
		b, _ := json.Marshal(map[string]string{"input": it.Input})
		return Item{Type: ItemFunctionCall, ID: it.ID, CallID: it.CallID, Name: it.Name, Arguments: string(b)}
	case ItemCustomToolCallOutput:
		it.Type = ItemFunctionCallOutput
	}
	return it
}

// fromFunctionCall maps a function call of a custom tool of req (offered as
// a function) back to the custom tool call it stands for; other items are
// returned as they are.
func fromFunctionCall(req *Request, it Item) Item {
	if it.Type != ItemFunctionCall || !isCustomTool(req, it.Name) {
		return it
	}
	return Item{Type: ItemCustomToolCall, ID: it.ID, CallID: it.CallID, Name: it.Name, Input: customInput(it.Arguments)}
}
