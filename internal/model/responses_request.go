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
// neither. The fields are in the order openai-go sent them, and tool
// schemas are escaped as it did them (<, >, & as \u003c, \u003e,
// \u0026), so that the bodies are byte for byte the ones agent-ls sent
// through it (see testdata/wire): a provider's prompt cache sees the same
// prefix.

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
	Instructions      string          `json:"instructions,omitempty"`
	ParallelToolCalls bool            `json:"parallel_tool_calls"`
	PromptCacheKey    string          `json:"prompt_cache_key,omitempty"`
	Store             bool            `json:"store"`
	Include           []string        `json:"include"`
	Input             []any           `json:"input"`
	Model             string          `json:"model"`
	Reasoning         *wireReasoning  `json:"reasoning,omitempty"`
	Text              *wireTextConfig `json:"text,omitempty"`
	ToolChoice        string          `json:"tool_choice"`
	Tools             []any           `json:"tools,omitempty"`
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
		Content any    `json:"content"` // a string or []any of wireInputText, wireInputImage
		Role    string `json:"role"`
		Phase   string `json:"phase,omitempty"`
		Type    string `json:"type"`
	}
	wireInputText struct {
		Text string `json:"text"`
		Type string `json:"type"`
	}
	wireInputImage struct {
		Detail   string `json:"detail"`
		ImageURL string `json:"image_url"`
		Type     string `json:"type"`
	}
	// wireOutputImage is an image of a function call's output (openai-go
	// had another type, with another field order, for those).
	wireOutputImage struct {
		ImageURL string `json:"image_url"`
		Detail   string `json:"detail"`
		Type     string `json:"type"`
	}
	wireFunctionCall struct {
		Arguments string `json:"arguments"`
		CallID    string `json:"call_id"`
		Name      string `json:"name"`
		Type      string `json:"type"`
	}
	wireFunctionCallOutput struct {
		Output any    `json:"output"` // a string or []any
		CallID string `json:"call_id"`
		Type   string `json:"type"`
	}
	wireCustomToolCall struct {
		CallID string `json:"call_id"`
		Input  string `json:"input"`
		Name   string `json:"name"`
		Type   string `json:"type"`
	}
	wireCustomToolCallOutput struct {
		CallID string `json:"call_id"`
		Output any    `json:"output"` // a string or []any
		Type   string `json:"type"`
	}
	wireReasoningItem struct {
		Summary          []wireSummary `json:"summary"`
		Content          []wireSummary `json:"content,omitempty"` // reasoning_text parts
		EncryptedContent string        `json:"encrypted_content,omitempty"`
		Type             string        `json:"type"`
	}
	wireSummary struct {
		Text string `json:"text"`
		Type string `json:"type"`
	}
	wireWebSearchCall struct {
		Action json.RawMessage `json:"action,omitempty"`
		Status string          `json:"status,omitempty"`
		Type   string          `json:"type"`
	}
)

// Responses tools.
type (
	wireFunctionTool struct {
		Strict      bool            `json:"strict"`
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Type        string          `json:"type"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	wireCustomTool struct {
		Name        string       `json:"name"`
		Description string       `json:"description,omitempty"`
		Format      *wireGrammar `json:"format,omitempty"`
		Type        string       `json:"type"`
	}
	wireGrammar struct {
		Definition string `json:"definition"`
		Syntax     string `json:"syntax"`
		Type       string `json:"type"`
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
	case ItemFunctionCallOutput:
		out := wireFunctionCallOutput{Type: string(it.Type), CallID: it.CallID, Output: it.Output}
		if len(it.Images) > 0 {
			parts := []any{wireInputText{Type: "input_text", Text: it.Output}}
			for _, u := range it.Images {
				parts = append(parts, wireOutputImage{Type: "input_image", ImageURL: u, Detail: "auto"})
			}
			out.Output = parts
		}
		return out, nil
	case ItemCustomToolCallOutput:
		out := wireCustomToolCallOutput{Type: string(it.Type), CallID: it.CallID, Output: it.Output}
		if len(it.Images) > 0 {
			out.Output = append([]any{wireInputText{Type: "input_text", Text: it.Output}}, imageContent(it.Images)...)
		}
		return out, nil
	case ItemReasoning:
		r := wireReasoningItem{Type: string(ItemReasoning), Summary: make([]wireSummary, 0, len(it.Summary)), EncryptedContent: it.EncryptedContent}
		for _, s := range it.Summary {
			r.Summary = append(r.Summary, wireSummary{Type: "summary_text", Text: s})
		}
		for _, s := range it.ReasoningText {
			r.Content = append(r.Content, wireSummary{Type: "reasoning_text", Text: s})
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
		var parts []any
		if it.Text != "" {
			parts = append(parts, wireInputText{Type: "input_text", Text: it.Text})
		}
		m.Content = append(parts, imageContent(it.Images)...)
	}
	return m, nil
}

func imageContent(urls []string) []any {
	parts := make([]any, len(urls))
	for i, u := range urls {
		parts[i] = wireInputImage{Type: "input_image", ImageURL: u, Detail: "auto"}
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
	return rawJSON(t.Parameters), nil
}

// rawJSON returns valid JSON compacted, with <, >, &, U+2028 and U+2029
// in its strings escaped, as openai-go sent tool schemas.
func rawJSON(raw json.RawMessage) json.RawMessage {
	var c, e bytes.Buffer
	if json.Compact(&c, raw) != nil {
		return raw
	}
	json.HTMLEscape(&e, c.Bytes())
	return e.Bytes()
}
