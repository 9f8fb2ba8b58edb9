package model

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// emptySchema is the parameters of a function tool that declares none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// The request bodies of both wire APIs, as plain structs: only the fields
// agent-ls sends, in the shapes the APIs take. A field that must be
// omitted when unset is a pointer or has omitempty; one that must be sent
// even when empty (a message's content, a reasoning item's summary) has
// neither.

// marshalBody encodes a request body. HTML characters (<, >, &) stay as
// they are: the model sees the same text either way, and code is full of
// them.
func marshalBody(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// responsesBody is the body of POST /responses.
type responsesBody struct {
	Model             string          `json:"model"`
	Instructions      string          `json:"instructions,omitempty"`
	Input             []any           `json:"input"`
	Tools             []any           `json:"tools,omitempty"`
	ToolChoice        string          `json:"tool_choice"`
	ParallelToolCalls bool            `json:"parallel_tool_calls"`
	Reasoning         *wireReasoning  `json:"reasoning,omitempty"`
	Text              *wireTextConfig `json:"text,omitempty"`
	Include           []string        `json:"include"`
	Store             bool            `json:"store"`
	PromptCacheKey    string          `json:"prompt_cache_key,omitempty"`
	Stream            bool            `json:"stream"`
}

type wireReasoning struct {
	Effort  string `json:"effort,omitempty"`
	Summary string `json:"summary,omitempty"`
}

type wireTextConfig struct {
	Verbosity string `json:"verbosity"`
}

// Responses input items.
type (
	wireMessage struct {
		Type    string `json:"type"`
		Role    string `json:"role"`
		Content any    `json:"content"` // a string or []wireContent
		Phase   string `json:"phase,omitempty"`
	}
	// wireContent is a part of a message or of a tool output: input_text
	// (Text, sent even when empty) or input_image.
	wireContent struct {
		Type     string  `json:"type"`
		Text     *string `json:"text,omitempty"`
		ImageURL string  `json:"image_url,omitempty"`
		Detail   string  `json:"detail,omitempty"`
	}
	wireFunctionCall struct {
		Type      string `json:"type"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	wireCustomToolCall struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Name   string `json:"name"`
		Input  string `json:"input"`
	}
	// wireCallOutput is a function_call_output or custom_tool_call_output.
	wireCallOutput struct {
		Type   string `json:"type"`
		CallID string `json:"call_id"`
		Output any    `json:"output"` // a string or []wireContent
	}
	wireReasoningItem struct {
		Type             string        `json:"type"`
		Summary          []wireSummary `json:"summary"`
		EncryptedContent string        `json:"encrypted_content,omitempty"`
	}
	wireSummary struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	wireWebSearchCall struct {
		Type   string          `json:"type"`
		Status string          `json:"status,omitempty"`
		Action json.RawMessage `json:"action,omitempty"`
	}
)

// Responses tools.
type (
	wireFunctionTool struct {
		Type        string          `json:"type"`
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      bool            `json:"strict"`
	}
	wireCustomTool struct {
		Type        string       `json:"type"`
		Name        string       `json:"name"`
		Description string       `json:"description,omitempty"`
		Format      *wireGrammar `json:"format,omitempty"`
	}
	wireGrammar struct {
		Type       string `json:"type"`
		Syntax     string `json:"syntax"`
		Definition string `json:"definition"`
	}
	wireHostedTool struct {
		Type string `json:"type"`
	}
)

// newResponsesBody builds the Responses API request for req. The request
// is stateless (store: false): the whole history is sent each time,
// reasoning items with their encrypted content, and no item ids (the
// server keeps no items to refer to). With FunctionToolsOnly, custom tools
// and their calls travel as functions (see asFunctionTool).
func newResponsesBody(req *Request) (*responsesBody, error) {
	p := &responsesBody{
		Model:             req.Model,
		Instructions:      req.Instructions,
		Input:             make([]any, 0, len(req.Input)),
		ToolChoice:        "auto",
		ParallelToolCalls: true,
		Include:           []string{"reasoning.encrypted_content"},
		PromptCacheKey:    req.PromptCacheKey,
		Stream:            true,
	}
	if req.ReasoningEffort != "" {
		p.Reasoning = &wireReasoning{Effort: req.ReasoningEffort, Summary: req.ReasoningSummary}
	}
	if req.Verbosity != "" {
		p.Text = &wireTextConfig{Verbosity: req.Verbosity}
	}
	for i := range req.Input {
		item := &req.Input[i]
		if req.FunctionToolsOnly {
			fi := asFunctionItem(*item)
			item = &fi
		}
		it, err := wireInputItem(item)
		if err != nil {
			return nil, fmt.Errorf("model: input item %d: %w", i, err)
		}
		p.Input = append(p.Input, it)
	}
	for _, t := range req.Tools {
		if req.FunctionToolsOnly {
			t = asFunctionTool(t)
		}
		tool, err := wireTool(t)
		if err != nil {
			return nil, err
		}
		p.Tools = append(p.Tools, tool)
	}
	if req.WebSearch {
		p.Tools = append(p.Tools, wireHostedTool{Type: "web_search"})
	}
	return p, nil
}

func wireInputItem(it *Item) (any, error) {
	switch it.Type {
	case ItemMessage:
		return wireInputMessage(it)
	case ItemFunctionCall:
		return wireFunctionCall{Type: string(ItemFunctionCall), CallID: it.CallID, Name: it.Name, Arguments: it.Arguments}, nil
	case ItemCustomToolCall:
		return wireCustomToolCall{Type: string(ItemCustomToolCall), CallID: it.CallID, Name: it.Name, Input: it.Input}, nil
	case ItemFunctionCallOutput, ItemCustomToolCallOutput:
		out := wireCallOutput{Type: string(it.Type), CallID: it.CallID, Output: it.Output}
		if len(it.Images) > 0 {
			out.Output = append([]wireContent{{Type: "input_text", Text: &it.Output}}, imageContent(it.Images)...)
		}
		return out, nil
	case ItemReasoning:
		r := wireReasoningItem{Type: string(ItemReasoning), Summary: make([]wireSummary, 0, len(it.Summary)), EncryptedContent: it.EncryptedContent}
		for _, s := range it.Summary {
			r.Summary = append(r.Summary, wireSummary{Type: "summary_text", Text: s})
		}
		return r, nil
	case ItemWebSearchCall:
		// Sent back as it came, without its id (it refers to a stored
		// item, which there is none of with store: false).
		return wireWebSearchCall{Type: string(ItemWebSearchCall), Status: it.Status, Action: it.Action}, nil
	}
	return nil, fmt.Errorf("unsupported item type %q", it.Type)
}

func wireInputMessage(it *Item) (any, error) {
	switch it.Role {
	case RoleUser, RoleAssistant, RoleDeveloper, "system":
	default:
		return nil, fmt.Errorf("unsupported message role %q", it.Role)
	}
	m := wireMessage{Type: string(ItemMessage), Role: it.Role, Content: it.Text}
	if it.Role == RoleAssistant {
		m.Phase = it.Phase
	} else if len(it.Images) > 0 {
		var parts []wireContent
		if it.Text != "" {
			parts = append(parts, wireContent{Type: "input_text", Text: &it.Text})
		}
		m.Content = append(parts, imageContent(it.Images)...)
	}
	return m, nil
}

func imageContent(urls []string) []wireContent {
	parts := make([]wireContent, len(urls))
	for i, u := range urls {
		parts[i] = wireContent{Type: "input_image", ImageURL: u, Detail: "auto"}
	}
	return parts
}

func wireTool(t Tool) (any, error) {
	switch t.Type {
	case ToolFunction, "":
		schema, err := toolSchema(t)
		if err != nil {
			return nil, err
		}
		// Raw, so the schema reaches the model with its keys in the
		// caller's order.
		return wireFunctionTool{Type: string(ToolFunction), Name: t.Name, Description: t.Description, Parameters: schema}, nil
	case ToolCustom:
		c := wireCustomTool{Type: string(ToolCustom), Name: t.Name, Description: t.Description}
		if g := t.Grammar; g != nil {
			if g.Syntax != "lark" && g.Syntax != "regex" {
				return nil, fmt.Errorf("model: tool %q: unsupported grammar syntax %q (want lark or regex)", t.Name, g.Syntax)
			}
			c.Format = &wireGrammar{Type: "grammar", Syntax: g.Syntax, Definition: g.Definition}
		}
		return c, nil
	}
	return nil, fmt.Errorf("model: tool %q: unsupported tool type %q", t.Name, t.Type)
}

// toolSchema returns a function tool's parameters as raw JSON.
func toolSchema(t Tool) (json.RawMessage, error) {
	if len(t.Parameters) == 0 {
		return emptySchema, nil
	}
	if !json.Valid(t.Parameters) {
		return nil, fmt.Errorf("model: tool %q: parameters are not valid JSON", t.Name)
	}
	return t.Parameters, nil
}
