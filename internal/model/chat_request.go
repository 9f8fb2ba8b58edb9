package model

import (
	"fmt"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"
)

// chatParams builds the Chat Completions request for req, for local
// OpenAI-compatible servers: the instructions become the system message,
// developer messages become system messages too (many local servers know
// no developer role), consecutive calls become one assistant message with
// tool_calls, outputs become tool messages, and reasoning and web search
// items are dropped. Custom tools are offered as function tools (see
// asFunctionTool).
func chatParams(req *Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(req.Model),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if req.ReasoningEffort != "" {
		p.ReasoningEffort = shared.ReasoningEffort(req.ReasoningEffort)
	}
	if req.Verbosity != "" {
		p.Verbosity = openai.ChatCompletionNewParamsVerbosity(req.Verbosity)
	}
	// req.WebSearch: Chat Completions has no hosted tools.
	msgs, err := chatMessages(req)
	if err != nil {
		return p, err
	}
	p.Messages = msgs
	for _, t := range req.Tools {
		tool, err := chatTool(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, tool)
	}
	if len(p.Tools) > 0 {
		p.ToolChoice = openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")}
		p.ParallelToolCalls = openai.Bool(true)
	}
	return p, nil
}

func chatMessages(req *Request) ([]openai.ChatCompletionMessageParamUnion, error) {
	var msgs []openai.ChatCompletionMessageParamUnion
	if req.Instructions != "" {
		msgs = append(msgs, openai.SystemMessage(req.Instructions))
	}
	// lastAssistant is the assistant message that calls attach to, while
	// the items run on without a user turn or output in between.
	var lastAssistant *openai.ChatCompletionAssistantMessageParam
	// Tool messages carry no images; those of a run of outputs follow
	// the run in one user message.
	var images []string
	flushImages := func() {
		if len(images) == 0 {
			return
		}
		msgs = append(msgs, openai.UserMessage(imageParts("Images from the tool output above:", images)))
		images = nil
	}
	for i := range req.Input {
		it := &req.Input[i]
		if it.Type != ItemFunctionCallOutput && it.Type != ItemCustomToolCallOutput {
			flushImages()
		}
		switch it.Type {
		case ItemMessage:
			lastAssistant = nil
			switch it.Role {
			case RoleUser:
				if len(it.Images) > 0 {
					msgs = append(msgs, openai.UserMessage(imageParts(it.Text, it.Images)))
				} else {
					msgs = append(msgs, openai.UserMessage(it.Text))
				}
			case RoleAssistant:
				m := openai.AssistantMessage(it.Text)
				msgs = append(msgs, m)
				lastAssistant = msgs[len(msgs)-1].OfAssistant
			case RoleDeveloper, "system":
				msgs = append(msgs, openai.SystemMessage(it.Text))
			default:
				return nil, fmt.Errorf("model: input item %d: unsupported message role %q", i, it.Role)
			}
		case ItemFunctionCall, ItemCustomToolCall:
			if lastAssistant == nil {
				msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &openai.ChatCompletionAssistantMessageParam{}})
				lastAssistant = msgs[len(msgs)-1].OfAssistant
			}
			call := asFunctionItem(*it)
			lastAssistant.ToolCalls = append(lastAssistant.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
				OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
					ID:       call.CallID,
					Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: call.Name, Arguments: call.Arguments},
				},
			})
		case ItemFunctionCallOutput, ItemCustomToolCallOutput:
			lastAssistant = nil
			msgs = append(msgs, openai.ToolMessage(it.Output, it.CallID))
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

func imageParts(text string, images []string) []openai.ChatCompletionContentPartUnionParam {
	var parts []openai.ChatCompletionContentPartUnionParam
	if text != "" {
		parts = append(parts, openai.TextContentPart(text))
	}
	for _, u := range images {
		parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: u}))
	}
	return parts
}

func chatTool(t Tool) (openai.ChatCompletionToolUnionParam, error) {
	t = asFunctionTool(t)
	if t.Type != ToolFunction && t.Type != "" {
		return openai.ChatCompletionToolUnionParam{}, fmt.Errorf("model: tool %q: unsupported tool type %q", t.Name, t.Type)
	}
	schema, err := toolSchema(t)
	if err != nil {
		return openai.ChatCompletionToolUnionParam{}, err
	}
	fd := shared.FunctionDefinitionParam{Name: t.Name, Strict: openai.Bool(false)}
	if t.Description != "" {
		fd.Description = openai.String(t.Description)
	}
	fd.SetExtraFields(map[string]any{"parameters": schema})
	return openai.ChatCompletionFunctionTool(fd), nil
}
