package model

import (
	"encoding/json"
	"fmt"
)

// chatBody is the body of POST /chat/completions.
type chatBody struct {
	Messages          []chatMessage      `json:"messages,omitempty"`
	Model             string             `json:"model"`
	ParallelToolCalls *bool              `json:"parallel_tool_calls,omitempty"`
	ReasoningEffort   string             `json:"reasoning_effort,omitempty"`
	StreamOptions     chatStreamOptions  `json:"stream_options"`
	Verbosity         string             `json:"verbosity,omitempty"`
	ToolChoice        string             `json:"tool_choice,omitempty"`
	Tools             []chatFunctionTool `json:"tools,omitempty"`
	Stream            bool               `json:"stream"`
}

type chatStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// chatMessage is a message of any role. Content is a string or
// []chatContentPart, nil for an assistant message that only calls tools.
type chatMessage struct {
	Content    any            `json:"content,omitempty"`
	ToolCalls  []chatToolCall `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Role       string         `json:"role"`
}

type chatContentPart struct {
	Text     string        `json:"text,omitempty"`
	ImageURL *chatImageURL `json:"image_url,omitempty"`
	Type     string        `json:"type"`
}

type chatImageURL struct {
	URL string `json:"url"`
}

type chatToolCall struct {
	ID       string            `json:"id"`
	Function *chatFunctionCall `json:"function,omitempty"` // nil when both fields are empty
	Type     string            `json:"type"`
}

type chatFunctionCall struct {
	Arguments string `json:"arguments"`
	Name      string `json:"name"`
}

type chatFunctionTool struct {
	Function chatFuncDef `json:"function"`
	Type     string      `json:"type"`
}

type chatFuncDef struct {
	Name        string          `json:"name"`
	Strict      bool            `json:"strict"`
	Description string          `json:"description,omitempty"`
	Parameters  json.RawMessage `json:"parameters"`
}

// newChatBody builds the Chat Completions request for req, for local
// OpenAI-compatible servers: the instructions become the system message,
// developer messages become system messages too (many local servers know
// no developer role), consecutive calls become one assistant message with
// tool_calls, outputs become tool messages, and reasoning and web search
// items are dropped. Custom tools are offered as function tools (see
// asFunctionTool).
func newChatBody(req *Request) (*chatBody, error) {
	p := &chatBody{
		Model:           req.Model,
		ReasoningEffort: req.ReasoningEffort,
		Verbosity:       req.Verbosity,
		StreamOptions:   chatStreamOptions{IncludeUsage: true},
		Stream:          true,
	}
	// req.WebSearch: Chat Completions has no hosted tools.
	msgs, err := newChatMessages(req)
	if err != nil {
		return nil, err
	}
	p.Messages = msgs
	for _, t := range req.Tools {
		tool, err := newChatTool(t)
		if err != nil {
			return nil, err
		}
		p.Tools = append(p.Tools, tool)
	}
	if len(p.Tools) > 0 {
		parallel := true
		p.ToolChoice, p.ParallelToolCalls = "auto", &parallel
	}
	return p, nil
}

func newChatMessages(req *Request) ([]chatMessage, error) {
	var msgs []chatMessage
	if req.Instructions != "" {
		msgs = append(msgs, chatMessage{Role: "system", Content: req.Instructions})
	}
	// lastAssistant is the index of the assistant message that calls
	// attach to, while the items run on without a user turn or output in
	// between; -1 for none.
	lastAssistant := -1
	// Tool messages carry no images; those of a run of outputs follow
	// the run in one user message.
	var images []string
	flushImages := func() {
		if len(images) == 0 {
			return
		}
		msgs = append(msgs, chatMessage{Role: RoleUser, Content: chatImageParts("Images from the tool output above:", images)})
		images = nil
	}
	for i := range req.Input {
		it := &req.Input[i]
		if it.Type != ItemFunctionCallOutput && it.Type != ItemCustomToolCallOutput {
			flushImages()
		}
		switch it.Type {
		case ItemMessage:
			lastAssistant = -1
			switch it.Role {
			case RoleUser:
				if len(it.Images) > 0 {
					msgs = append(msgs, chatMessage{Role: RoleUser, Content: chatImageParts(it.Text, it.Images)})
				} else {
					msgs = append(msgs, chatMessage{Role: RoleUser, Content: it.Text})
				}
			case RoleAssistant:
				msgs = append(msgs, chatMessage{Role: RoleAssistant, Content: it.Text})
				lastAssistant = len(msgs) - 1
			case RoleDeveloper, "system":
				msgs = append(msgs, chatMessage{Role: "system", Content: it.Text})
			default:
				return nil, fmt.Errorf("model: input item %d: unsupported message role %q", i, it.Role)
			}
		case ItemFunctionCall, ItemCustomToolCall:
			if lastAssistant < 0 {
				msgs = append(msgs, chatMessage{Role: RoleAssistant})
				lastAssistant = len(msgs) - 1
			}
			call := asFunctionItem(*it)
			m := &msgs[lastAssistant]
			tc := chatToolCall{ID: call.CallID, Type: "function"}
			if call.Name != "" || call.Arguments != "" {
				tc.Function = &chatFunctionCall{Name: call.Name, Arguments: call.Arguments}
			}
			m.ToolCalls = append(m.ToolCalls, tc)
		case ItemFunctionCallOutput, ItemCustomToolCallOutput:
			lastAssistant = -1
			msgs = append(msgs, chatMessage{Role: "tool", Content: it.Output, ToolCallID: it.CallID})
			images = append(images, it.Images...)
		case ItemReasoning, ItemWebSearchCall:
			// Chat Completions has no way to send reasoning or hosted
			// tool calls back.
		default:
			return nil, fmt.Errorf("model: input item %d: unsupported item type %q", i, it.Type)
		}
	}
	flushImages()
	return msgs, nil
}

func chatImageParts(text string, images []string) []chatContentPart {
	var parts []chatContentPart
	if text != "" {
		parts = append(parts, chatContentPart{Type: "text", Text: text})
	}
	for _, u := range images {
		parts = append(parts, chatContentPart{Type: "image_url", ImageURL: &chatImageURL{URL: u}})
	}
	return parts
}

func newChatTool(t Tool) (chatFunctionTool, error) {
	t = asFunctionTool(t)
	if t.Type != ToolFunction && t.Type != "" {
		return chatFunctionTool{}, fmt.Errorf("model: tool %q: unsupported tool type %q", t.Name, t.Type)
	}
	schema, err := toolSchema(t)
	if err != nil {
		return chatFunctionTool{}, err
	}
	return chatFunctionTool{Type: "function", Function: chatFuncDef{Name: t.Name, Description: t.Description, Parameters: schema}}, nil
}
