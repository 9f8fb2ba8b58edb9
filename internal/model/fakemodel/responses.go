package fakemodel

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Wire shapes of the Responses API.
type (
	wireResponse struct {
		ID                string           `json:"id"`
		Object            string           `json:"object"`
		CreatedAt         int64            `json:"created_at"`
		Status            string           `json:"status"`
		Model             string           `json:"model"`
		Output            []wireItem       `json:"output"`
		ParallelToolCalls bool             `json:"parallel_tool_calls"`
		ToolChoice        string           `json:"tool_choice"`
		Tools             []any            `json:"tools"`
		Error             *APIError        `json:"error"`
		IncompleteDetails *wireIncomplete  `json:"incomplete_details"`
		Usage             *wireUsage       `json:"usage"`
		Store             bool             `json:"store"`
		Metadata          map[string]any   `json:"metadata"`
		Reasoning         map[string]any   `json:"reasoning,omitempty"`
		Text              map[string]any   `json:"text,omitempty"`
		Truncation        string           `json:"truncation"`
		Instructions      *json.RawMessage `json:"instructions"`
	}
	wireIncomplete struct {
		Reason string `json:"reason"`
	}
	wireUsage struct {
		InputTokens        int64 `json:"input_tokens"`
		InputTokensDetails struct {
			CachedTokens int64 `json:"cached_tokens"`
		} `json:"input_tokens_details"`
		OutputTokens        int64 `json:"output_tokens"`
		OutputTokensDetails struct {
			ReasoningTokens int64 `json:"reasoning_tokens"`
		} `json:"output_tokens_details"`
		TotalTokens int64 `json:"total_tokens"`
	}
	wireItem struct {
		ID               string      `json:"id"`
		Type             string      `json:"type"`
		Status           string      `json:"status,omitempty"`
		Role             string      `json:"role,omitempty"`
		Phase            string      `json:"phase,omitempty"`
		Content          *[]wirePart `json:"content,omitempty"`
		CallID           string      `json:"call_id,omitempty"`
		Name             string      `json:"name,omitempty"`
		Arguments        *string     `json:"arguments,omitempty"`
		Input            *string     `json:"input,omitempty"`
		Summary          *[]wirePart `json:"summary,omitempty"`
		EncryptedContent *string     `json:"encrypted_content,omitempty"`
		Action           *wireAction `json:"action,omitempty"`
	}
	wireAction struct {
		Type  string `json:"type"`
		Query string `json:"query"`
	}
	wirePart struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Refusal     string `json:"refusal,omitempty"`
		Annotations *[]any `json:"annotations,omitempty"`
		Logprobs    *[]any `json:"logprobs,omitempty"`
	}
)

var (
	emptyList  = []any{}
	emptyArray = []byte("[]")
)

// streamResponses streams reply as a Responses API event stream:
// response.created, response.in_progress, then per item
// output_item.added, its content events and output_item.done, then
// response.completed (or the reply's failure).
func streamResponses(s *sse, req *Request, reply *Reply) {
	resp := wireResponse{
		ID: reply.ID, Object: "response", CreatedAt: time.Now().Unix(), Status: "in_progress",
		Model: stringField(req.JSON, "model"), Output: []wireItem{}, ParallelToolCalls: true,
		ToolChoice: "auto", Tools: emptyList, Metadata: map[string]any{}, Truncation: "disabled",
	}
	if resp.ID == "" {
		resp.ID = fmt.Sprintf("resp_%d", req.Seq)
	}
	s.event("response.created", "response", resp)
	s.event("response.in_progress", "response", resp)

	for i := range reply.Items {
		it := &reply.Items[i]
		id := itemID(it, req.Seq, i)
		var done wireItem
		switch it.Type {
		case TypeMessage:
			done = responsesMessage(s, it, id, i)
		case TypeFunctionCall:
			done = responsesFunctionCall(s, it, id, callID(it, req.Seq, i), i)
		case TypeCustomToolCall:
			done = responsesCustomToolCall(s, it, id, callID(it, req.Seq, i), i)
		case TypeReasoning:
			done = responsesReasoning(s, it, id, i)
		case TypeWebSearchCall:
			done = responsesWebSearch(s, it, id, i)
		default:
			panic(fmt.Sprintf("fakemodel: unknown item type %q", it.Type))
		}
		s.itemEvent("response.output_item.done", i, done)
		resp.Output = append(resp.Output, done)
	}

	switch {
	case reply.ErrorEvent != nil:
		s.open("error")
		s.str("code", reply.ErrorEvent.Code)
		s.str("message", reply.ErrorEvent.Message)
		s.raw("param", []byte("null"))
		s.closeObject()
	case reply.Failed != nil:
		resp.Status, resp.Error = "failed", reply.Failed
		s.event("response.failed", "response", resp)
	case reply.Incomplete != "":
		resp.Status, resp.IncompleteDetails = "incomplete", &wireIncomplete{Reason: reply.Incomplete}
		resp.Usage = usage(reply, req)
		s.event("response.incomplete", "response", resp)
	default:
		resp.Status, resp.Usage = "completed", usage(reply, req)
		s.event("response.completed", "response", resp)
	}
}

// responsesMessage streams a message: an output_text part, or for a
// refusal a refusal part, with their delta and done events.
func responsesMessage(s *sse, it *Item, id string, pos int) wireItem {
	// The part's type, its events' prefix and its text's field.
	kind, events, field := "output_text", "response.output_text", "text"
	added := wirePart{Type: kind, Annotations: &emptyList}
	if it.Refusal {
		kind, events, field = "refusal", "response.refusal", "refusal"
		added = wirePart{Type: kind}
	}
	s.itemEvent("response.output_item.added", pos, wireItem{
		ID: id, Type: TypeMessage, Status: "in_progress", Role: "assistant", Phase: it.Phase, Content: &[]wirePart{},
	})
	s.partEvent("response.content_part.added", id, pos, "", added)
	textEvent := func(name, key, value string) {
		s.open(events + name)
		s.str("item_id", id)
		s.int("output_index", pos)
		s.int("content_index", 0)
		s.str(key, value)
		if !it.Refusal {
			s.raw("logprobs", emptyArray)
		}
		s.closeObject()
	}
	for _, c := range it.Text {
		textEvent(".delta", "delta", c)
	}
	full := text(it.Text)
	textEvent(".done", field, full)
	part := wirePart{Type: kind, Text: full, Annotations: &emptyList, Logprobs: &emptyList}
	if it.Refusal {
		part = wirePart{Type: kind, Refusal: full}
	}
	s.partEvent("response.content_part.done", id, pos, "", part)
	return wireItem{ID: id, Type: TypeMessage, Status: "completed", Role: "assistant", Phase: it.Phase, Content: &[]wirePart{part}}
}

func responsesFunctionCall(s *sse, it *Item, id, callID string, pos int) wireItem {
	empty := ""
	s.itemEvent("response.output_item.added", pos, wireItem{
		ID: id, Type: TypeFunctionCall, Status: "in_progress", CallID: callID, Name: it.Name, Arguments: &empty,
	})
	for _, c := range it.Arguments {
		s.open("response.function_call_arguments.delta")
		s.str("item_id", id)
		s.int("output_index", pos)
		s.str("delta", c)
		s.closeObject()
	}
	args := text(it.Arguments)
	s.open("response.function_call_arguments.done")
	s.str("item_id", id)
	s.int("output_index", pos)
	s.str("name", it.Name)
	s.str("arguments", args)
	s.closeObject()
	return wireItem{ID: id, Type: TypeFunctionCall, Status: "completed", CallID: callID, Name: it.Name, Arguments: &args}
}

func responsesCustomToolCall(s *sse, it *Item, id, callID string, pos int) wireItem {
	empty := ""
	s.itemEvent("response.output_item.added", pos, wireItem{
		ID: id, Type: TypeCustomToolCall, Status: "in_progress", CallID: callID, Name: it.Name, Input: &empty,
	})
	for _, c := range it.Input {
		s.open("response.custom_tool_call_input.delta")
		s.str("item_id", id)
		s.int("output_index", pos)
		s.str("delta", c)
		s.closeObject()
	}
	input := text(it.Input)
	s.open("response.custom_tool_call_input.done")
	s.str("item_id", id)
	s.int("output_index", pos)
	s.str("input", input)
	s.closeObject()
	return wireItem{ID: id, Type: TypeCustomToolCall, Status: "completed", CallID: callID, Name: it.Name, Input: &input}
}

func responsesReasoning(s *sse, it *Item, id string, pos int) wireItem {
	s.itemEvent("response.output_item.added", pos, wireItem{ID: id, Type: TypeReasoning, Summary: &[]wirePart{}})
	parts := streamParts(s, id, pos, it.Summary, summaryParts)
	done := wireItem{ID: id, Type: TypeReasoning, Summary: &parts}
	if len(it.RawReasoning) > 0 {
		// The reasoning's own text, as gpt-oss's Responses servers send
		// it.
		content := streamParts(s, id, pos, it.RawReasoning, reasoningTextParts)
		done.Content = &content
	}
	if it.EncryptedContent != "" {
		enc := it.EncryptedContent
		done.EncryptedContent = &enc
	}
	return done
}

// partEvents name the events of one kind of a reasoning item's parts.
type partEvents struct {
	added, delta, done, partDone string
	index, partType              string // the index's key, the part's type
}

var (
	summaryParts = partEvents{
		added: "response.reasoning_summary_part.added", delta: "response.reasoning_summary_text.delta",
		done: "response.reasoning_summary_text.done", partDone: "response.reasoning_summary_part.done",
		index: "summary_index", partType: "summary_text",
	}
	reasoningTextParts = partEvents{
		added: "response.content_part.added", delta: "response.reasoning_text.delta",
		done: "response.reasoning_text.done", partDone: "response.content_part.done",
		index: "content_index", partType: "reasoning_text",
	}
)

// streamParts streams the parts of a reasoning item (each in chunks) as
// ev names their events, and returns them whole.
func streamParts(s *sse, id string, pos int, chunked [][]string, ev partEvents) []wirePart {
	parts := []wirePart{}
	for j, chunks := range chunked {
		s.partEvent(ev.added, id, pos, ev.index, wirePart{Type: ev.partType}, j)
		for _, c := range chunks {
			s.open(ev.delta)
			s.str("item_id", id)
			s.int("output_index", pos)
			s.int(ev.index, j)
			s.str("delta", c)
			s.closeObject()
		}
		full := text(chunks)
		s.open(ev.done)
		s.str("item_id", id)
		s.int("output_index", pos)
		s.int(ev.index, j)
		s.str("text", full)
		s.closeObject()
		part := wirePart{Type: ev.partType, Text: full}
		s.partEvent(ev.partDone, id, pos, ev.index, part, j)
		parts = append(parts, part)
	}
	return parts
}

func responsesWebSearch(s *sse, it *Item, id string, pos int) wireItem {
	s.itemEvent("response.output_item.added", pos, wireItem{ID: id, Type: TypeWebSearchCall, Status: "in_progress"})
	for _, phase := range []string{"in_progress", "searching", "completed"} {
		s.open("response.web_search_call." + phase)
		s.int("output_index", pos)
		s.str("item_id", id)
		s.closeObject()
	}
	return wireItem{ID: id, Type: TypeWebSearchCall, Status: "completed", Action: &wireAction{Type: "search", Query: it.Query}}
}

// event writes an event whose payload is one JSON object under key.
func (s *sse) event(typ, key string, v any) {
	if s.stopped {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	s.open(typ)
	s.raw(key, b)
	s.closeObject()
}

// itemEvent writes output_item.added or output_item.done.
func (s *sse) itemEvent(typ string, pos int, it wireItem) {
	if s.stopped {
		return
	}
	b, err := json.Marshal(it)
	if err != nil {
		panic(err)
	}
	s.open(typ)
	s.int("output_index", pos)
	s.raw("item", b)
	s.closeObject()
}

// partEvent writes a content_part or reasoning_summary_part event; index
// is the content_index (indexKey "") or the summary_index.
func (s *sse) partEvent(typ, id string, pos int, indexKey string, part wirePart, index ...int) {
	if s.stopped {
		return
	}
	b, err := json.Marshal(part)
	if err != nil {
		panic(err)
	}
	s.open(typ)
	s.str("item_id", id)
	s.int("output_index", pos)
	if indexKey == "" {
		s.int("content_index", 0)
	} else {
		s.int(indexKey, index[0])
	}
	s.raw("part", b)
	s.closeObject()
}

func itemID(it *Item, seq, i int) string {
	if it.ID != "" {
		return it.ID
	}
	prefix := map[string]string{TypeMessage: "msg", TypeFunctionCall: "fc", TypeCustomToolCall: "ctc", TypeReasoning: "rs", TypeWebSearchCall: "ws"}[it.Type]
	return fmt.Sprintf("%s_%d_%d", prefix, seq, i)
}

func callID(it *Item, seq, i int) string {
	if it.CallID != "" {
		return it.CallID
	}
	return fmt.Sprintf("call_%d_%d", seq, i)
}

// usage is the reply's usage, or an estimate when it has none.
func usage(reply *Reply, req *Request) *wireUsage {
	u := reply.Usage
	if u == (Usage{}) {
		u.InputTokens = int64(len(req.Body)/4 + 1)
		n := 0
		for i := range reply.Items {
			it := &reply.Items[i]
			n += len(text(it.Text)) + len(text(it.Arguments)) + len(text(it.Input))
			for _, p := range append(slices.Clone(it.Summary), it.RawReasoning...) {
				n += len(text(p))
			}
		}
		u.OutputTokens = int64(n/4 + 1)
	}
	w := &wireUsage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.InputTokens + u.OutputTokens}
	w.InputTokensDetails.CachedTokens = u.CachedInputTokens
	w.OutputTokensDetails.ReasoningTokens = u.ReasoningTokens
	return w
}

func stringField(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}
