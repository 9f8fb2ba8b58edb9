package model

// The request builders of agent-ls as they were over openai-go v3.95.0,
// kept to show that testdata/wire holds what openai-go sent.

import (
	"context"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/param"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"
)

// openaiGoSend sends req through openai-go (as the client did) over hc.
func openaiGoSend(req *Request, wire string, hc *http.Client) error {
	opts := []option.RequestOption{option.WithBaseURL("http://127.0.0.1:9/v1"), option.WithHTTPClient(hc),
		option.WithMaxRetries(0), option.WithAPIKey("k")}
	if wire == WireChat {
		p, err := chatParams(req)
		if err != nil {
			return err
		}
		svc := openai.NewChatCompletionService(opts...)
		s := svc.NewStreaming(context.Background(), p)
		defer s.Close()
		return s.Err()
	}
	p, err := responsesParams(req)
	if err != nil {
		return err
	}
	svc := responses.NewResponseService(opts...)
	s := svc.NewStreaming(context.Background(), p)
	defer s.Close()
	return s.Err()
}

// responsesParams builds the Responses API request for req. The request is
// stateless (store: false): the whole history is sent each time, reasoning
// items with their encrypted content, and no item ids (the server keeps no
// items to refer to). With FunctionToolsOnly, custom tools and their calls
// travel as functions (see asFunctionTool).
func responsesParams(req *Request) (responses.ResponseNewParams, error) {
	p := responses.ResponseNewParams{
		Model:             shared.ResponsesModel(req.Model),
		Store:             openai.Bool(false),
		ParallelToolCalls: openai.Bool(true),
		ToolChoice: responses.ResponseNewParamsToolChoiceUnion{
			OfToolChoiceMode: param.NewOpt(responses.ToolChoiceOptionsAuto),
		},
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent},
	}
	if req.Instructions != "" {
		p.Instructions = openai.String(req.Instructions)
	}
	if req.PromptCacheKey != "" {
		p.PromptCacheKey = openai.String(req.PromptCacheKey)
	}
	if req.ReasoningEffort != "" {
		p.Reasoning = shared.ReasoningParam{
			Effort:  shared.ReasoningEffort(req.ReasoningEffort),
			Summary: shared.ReasoningSummary(req.ReasoningSummary),
		}
	}
	if req.Verbosity != "" {
		p.Text = responses.ResponseTextConfigParam{Verbosity: responses.ResponseTextConfigVerbosity(req.Verbosity)}
	}
	input := make(responses.ResponseInputParam, 0, len(req.Input))
	for i := range req.Input {
		item := req.Input[i]
		if req.FunctionToolsOnly {
			item = asFunctionItem(item)
		}
		it, err := responsesInputItem(&item)
		if err != nil {
			return p, fmt.Errorf("model: input item %d: %w", i, err)
		}
		input = append(input, it)
	}
	p.Input = responses.ResponseNewParamsInputUnion{OfInputItemList: input}
	for _, t := range req.Tools {
		if req.FunctionToolsOnly {
			t = asFunctionTool(t)
		}
		tool, err := responsesTool(t)
		if err != nil {
			return p, err
		}
		p.Tools = append(p.Tools, tool)
	}
	if req.WebSearch {
		p.Tools = append(p.Tools, responses.ToolUnionParam{OfWebSearch: &responses.WebSearchToolParam{Type: responses.WebSearchToolTypeWebSearch}})
	}
	return p, nil
}

func responsesInputItem(it *Item) (responses.ResponseInputItemUnionParam, error) {
	switch it.Type {
	case ItemMessage:
		return responsesMessage(it)
	case ItemFunctionCall:
		return responses.ResponseInputItemUnionParam{OfFunctionCall: &responses.ResponseFunctionToolCallParam{
			CallID: it.CallID, Name: it.Name, Arguments: it.Arguments,
		}}, nil
	case ItemFunctionCallOutput:
		out := responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String(it.Output)}
		if len(it.Images) > 0 {
			list := responses.ResponseFunctionCallOutputItemListParam{{
				OfInputText: &responses.ResponseInputTextContentParam{Text: it.Output},
			}}
			for _, u := range it.Images {
				list = append(list, responses.ResponseFunctionCallOutputItemUnionParam{
					OfInputImage: &responses.ResponseInputImageContentParam{ImageURL: openai.String(u), Detail: "auto"},
				})
			}
			out = responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfResponseFunctionCallOutputItemArray: list}
		}
		return responses.ResponseInputItemUnionParam{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{
			CallID: openai.String(it.CallID), Output: out,
		}}, nil
	case ItemCustomToolCall:
		return responses.ResponseInputItemUnionParam{OfCustomToolCall: &responses.ResponseCustomToolCallParam{
			CallID: it.CallID, Name: it.Name, Input: it.Input,
		}}, nil
	case ItemCustomToolCallOutput:
		out := responses.ResponseCustomToolCallOutputOutputUnionParam{OfString: openai.String(it.Output)}
		if len(it.Images) > 0 {
			list := []responses.ResponseCustomToolCallOutputOutputOutputContentListItemUnionParam{{
				OfInputText: &responses.ResponseInputTextParam{Text: it.Output},
			}}
			for _, u := range it.Images {
				list = append(list, responses.ResponseCustomToolCallOutputOutputOutputContentListItemUnionParam{
					OfInputImage: &responses.ResponseInputImageParam{ImageURL: openai.String(u), Detail: responses.ResponseInputImageDetailAuto},
				})
			}
			out = responses.ResponseCustomToolCallOutputOutputUnionParam{OfOutputContentList: list}
		}
		return responses.ResponseInputItemUnionParam{OfCustomToolCallOutput: &responses.ResponseCustomToolCallOutputParam{
			CallID: it.CallID, Output: out,
		}}, nil
	case ItemReasoning:
		r := &responses.ResponseReasoningItemParam{Summary: []responses.ResponseReasoningItemSummaryParam{}}
		for _, s := range it.Summary {
			r.Summary = append(r.Summary, responses.ResponseReasoningItemSummaryParam{Text: s})
		}
		if it.EncryptedContent != "" {
			r.EncryptedContent = openai.String(it.EncryptedContent)
		}
		// The id is required by the type but refers to a stored item,
		// which there is none of with store: false.
		r.SetExtraFields(map[string]any{"id": param.Omit})
		return responses.ResponseInputItemUnionParam{OfReasoning: r}, nil
	case ItemWebSearchCall:
		return webSearchInput(it), nil
	}
	return responses.ResponseInputItemUnionParam{}, fmt.Errorf("unsupported item type %q", it.Type)
}

// webSearchInput sends a web search back as it came, without its id (it
// refers to a stored item, which there is none of with store: false).
func webSearchInput(it *Item) responses.ResponseInputItemUnionParam {
	raw := map[string]any{"type": ItemWebSearchCall}
	if it.Status != "" {
		raw["status"] = it.Status
	}
	if len(it.Action) > 0 {
		raw["action"] = it.Action
	}
	ws := param.Override[responses.ResponseFunctionWebSearchParam](raw)
	return responses.ResponseInputItemUnionParam{OfWebSearchCall: &ws}
}

func responsesMessage(it *Item) (responses.ResponseInputItemUnionParam, error) {
	var role responses.EasyInputMessageRole
	switch it.Role {
	case RoleUser:
		role = responses.EasyInputMessageRoleUser
	case RoleAssistant:
		role = responses.EasyInputMessageRoleAssistant
	case RoleDeveloper:
		role = responses.EasyInputMessageRoleDeveloper
	case "system":
		role = responses.EasyInputMessageRoleSystem
	default:
		return responses.ResponseInputItemUnionParam{}, fmt.Errorf("unsupported message role %q", it.Role)
	}
	m := &responses.EasyInputMessageParam{Role: role, Type: responses.EasyInputMessageTypeMessage}
	if role == responses.EasyInputMessageRoleAssistant {
		m.Phase = responses.EasyInputMessagePhase(it.Phase)
	}
	if len(it.Images) == 0 || role == responses.EasyInputMessageRoleAssistant {
		m.Content = responses.EasyInputMessageContentUnionParam{OfString: openai.String(it.Text)}
	} else {
		var parts responses.ResponseInputMessageContentListParam
		if it.Text != "" {
			parts = append(parts, responses.ResponseInputContentParamOfInputText(it.Text))
		}
		for _, u := range it.Images {
			parts = append(parts, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
				ImageURL: openai.String(u), Detail: responses.ResponseInputImageDetailAuto,
			}})
		}
		m.Content = responses.EasyInputMessageContentUnionParam{OfInputItemContentList: parts}
	}
	return responses.ResponseInputItemUnionParam{OfMessage: m}, nil
}

func responsesTool(t Tool) (responses.ToolUnionParam, error) {
	switch t.Type {
	case ToolFunction, "":
		schema, err := toolSchema(t)
		if err != nil {
			return responses.ToolUnionParam{}, err
		}
		f := &responses.FunctionToolParam{Name: t.Name, Strict: openai.Bool(false)}
		if t.Description != "" {
			f.Description = openai.String(t.Description)
		}
		// Raw, so the schema reaches the model with its keys in the
		// caller's order.
		f.SetExtraFields(map[string]any{"parameters": schema})
		return responses.ToolUnionParam{OfFunction: f}, nil
	case ToolCustom:
		c := &responses.CustomToolParam{Name: t.Name}
		if t.Description != "" {
			c.Description = openai.String(t.Description)
		}
		if g := t.Grammar; g != nil {
			if g.Syntax != "lark" && g.Syntax != "regex" {
				return responses.ToolUnionParam{}, fmt.Errorf("model: tool %q: unsupported grammar syntax %q (want lark or regex)", t.Name, g.Syntax)
			}
			c.Format = shared.CustomToolInputFormatParamOfGrammar(g.Definition, g.Syntax)
		}
		return responses.ToolUnionParam{OfCustom: c}, nil
	}
	return responses.ToolUnionParam{}, fmt.Errorf("model: tool %q: unsupported tool type %q", t.Name, t.Type)
}

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
