package model

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
)

// Stream events of the Responses API: only the fields agent-ls uses.
type (
	responsesEvent struct {
		Type         string `json:"type"`
		OutputIndex  int    `json:"output_index"`
		SummaryIndex int    `json:"summary_index"`
		ContentIndex int    `json:"content_index"`
		ItemID       string `json:"item_id"`
		Delta        string `json:"delta"`
		// Item and Response are decoded only by the events that use
		// them (response.created repeats the whole request).
		Item     json.RawMessage `json:"item"`
		Response json.RawMessage `json:"response"`
		Code     json.RawMessage `json:"code"` // of an error event: a string, or null
		Message  string          `json:"message"`
		// Error, at the top level and not null, ends the stream with it.
		Error json.RawMessage `json:"error"`
	}
	responsesOutputItem struct {
		Type    string `json:"type"`
		ID      string `json:"id"`
		Role    string `json:"role"`
		Phase   string `json:"phase"`
		Content []struct {
			Type    string `json:"type"`
			Text    string `json:"text"`
			Refusal string `json:"refusal"`
		} `json:"content"`
		CallID    string          `json:"call_id"`
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"` // a string
		Input     string          `json:"input"`
		Summary   []struct {
			Text string `json:"text"`
		} `json:"summary"`
		EncryptedContent string          `json:"encrypted_content"`
		Status           string          `json:"status"`
		Action           json.RawMessage `json:"action"`
	}
	responsesResponse struct {
		ID     string                `json:"id"`
		Output []responsesOutputItem `json:"output"`
		Usage  struct {
			InputTokens        int64 `json:"input_tokens"`
			InputTokensDetails struct {
				CachedTokens int64 `json:"cached_tokens"`
			} `json:"input_tokens_details"`
			OutputTokens        int64 `json:"output_tokens"`
			OutputTokensDetails struct {
				ReasoningTokens int64 `json:"reasoning_tokens"`
			} `json:"output_tokens_details"`
		} `json:"usage"`
		Error struct {
			Code    json.RawMessage `json:"code"`
			Message string          `json:"message"`
		} `json:"error"`
		IncompleteDetails struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
	}
)

// runResponses makes one attempt on the Responses API and maps its stream:
// output_text (and refusal) deltas become TextDelta, reasoning summary
// deltas ReasoningDelta, output_item.done ItemDone, and response.completed
// the Response. Function calls of custom tools offered as functions are
// mapped back to custom tool calls.
func (c *client) runResponses(ctx context.Context, body []byte, req *Request, at *attempt) (*Response, error) {
	res, err := c.api.post(ctx, body, at)
	if err != nil {
		return nil, err
	}
	st := &responsesStream{req: req, rp: at.replay}
	if err := events(res, at, st.event); err != nil {
		return nil, err
	}
	if st.resp == nil {
		return nil, errTruncated
	}
	return st.resp, nil
}

// responsesStream is one attempt's stream as runResponses maps it.
type responsesStream struct {
	req  *Request
	rp   *replay
	done []Item    // output_item.done items by output index, a fallback for a bare response.completed
	resp *Response // once response.completed came
	// rawPart is the content_index of the last reasoning_text delta, by
	// output index.
	rawPart map[int]int
}

// event maps one event of the stream, and reports true once it carried
// the complete response.
func (st *responsesStream) event(data []byte, unterminated bool) (bool, error) {
	var ev responsesEvent
	if err := json.Unmarshal(data, &ev); err != nil {
		if !unterminated && !responsesEventUsed(data) {
			return false, nil // an event of a kind agent-ls does not read, in a shape it does not know
		}
		return false, badEvent(data, unterminated, err)
	}
	if hasError(ev.Error) {
		return false, streamError(data, ev.Error)
	}
	// decode decodes a part of the event the event type needs.
	decode := func(raw json.RawMessage, v any) error {
		if len(raw) == 0 {
			return nil
		}
		if err := json.Unmarshal(raw, v); err != nil {
			return badEvent(data, unterminated, err)
		}
		return nil
	}
	rp, pos := st.rp, ev.OutputIndex
	switch ev.Type {
	case "response.output_item.added":
		var it responsesOutputItem
		if err := decode(ev.Item, &it); err != nil {
			return false, err
		}
		s := rp.item(pos, ItemType(it.Type), it.ID)
		if s.kind == ItemWebSearchCall && !s.started {
			s.started = true
			rp.emit(Event{Kind: ItemStarted, ItemID: s.id, Item: &Item{Type: ItemWebSearchCall, ID: s.id, Status: it.Status}})
		}
	case "response.output_text.delta", "response.refusal.delta":
		rp.delta(deltaSlot(rp, pos, ItemMessage, ev.ItemID), TextDelta, ev.Delta)
	case "response.reasoning_summary_part.added":
		if ev.SummaryIndex > 0 {
			rp.delta(deltaSlot(rp, pos, ItemReasoning, ev.ItemID), ReasoningDelta, "\n\n")
		}
	case "response.reasoning_summary_text.delta":
		rp.delta(deltaSlot(rp, pos, ItemReasoning, ev.ItemID), ReasoningDelta, ev.Delta)
	case "response.reasoning_text.delta":
		// The reasoning's own text (gpt-oss served over the Responses
		// API), shown as Chat Completions' reasoning_content is; its
		// parts apart as summary parts are.
		slot := deltaSlot(rp, pos, ItemReasoning, ev.ItemID)
		if st.rawPart == nil {
			st.rawPart = map[int]int{}
		}
		if last, ok := st.rawPart[pos]; ok && last != ev.ContentIndex {
			rp.delta(slot, ReasoningDelta, "\n\n")
		}
		st.rawPart[pos] = ev.ContentIndex
		rp.delta(slot, ReasoningDelta, ev.Delta)
	case "response.output_item.done":
		var o responsesOutputItem
		if err := decode(ev.Item, &o); err != nil {
			return false, err
		}
		st.itemDone(pos, &o)
	case "response.completed", "response.failed", "response.incomplete":
		var r responsesResponse
		if err := decode(ev.Response, &r); err != nil {
			return false, err
		}
		return st.ended(ev.Type, &r)
	case "error":
		code := codeText(ev.Code)
		return false, &Error{Code: code, Message: ev.Message, retryable: retryableCode(code), retryAfter: delayInMessage(ev.Message)}
	}
	return false, nil
}

// itemDone finishes the output item at pos (an item agent-ls does not
// read is skipped), keeping it for a bare response.completed.
func (st *responsesStream) itemDone(pos int, o *responsesOutputItem) {
	it, ok := outputItem(o)
	if !ok {
		return
	}
	s := st.rp.lookup(pos)
	if s == nil || s.kind != it.Type {
		s = st.rp.item(pos, it.Type, it.ID)
	}
	it.ID = s.id
	it = fromFunctionCall(st.req, it)
	st.rp.done(s, it)
	for len(st.done) <= pos {
		st.done = append(st.done, Item{})
	}
	st.done[pos] = it
}

// ended is the end of the stream that an event of type typ
// (response.completed, .failed or .incomplete) with the response r
// tells: the Response, or the error.
func (st *responsesStream) ended(typ string, r *responsesResponse) (bool, error) {
	switch typ {
	case "response.completed":
		st.resp = completedResponse(r, st.req, st.rp, st.done)
		return true, nil
	case "response.failed":
		msg := r.Error.Message
		if msg == "" {
			msg = "response failed"
		}
		code := codeText(r.Error.Code)
		return false, &Error{Code: code, Message: msg, retryable: retryableCode(code), retryAfter: delayInMessage(msg)}
	}
	reason := r.IncompleteDetails.Reason
	if reason == "" {
		reason = "unknown reason"
	}
	return false, &Error{Code: "incomplete", Message: "response incomplete: " + reason}
}

// responsesEventUsed reports whether data is an event of a type
// runResponses reads, or one with an error, or one it cannot tell the type
// of.
func responsesEventUsed(data []byte) bool {
	var v struct {
		Type  *string         `json:"type"`
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(data, &v) != nil || v.Type == nil || hasError(v.Error) {
		return true
	}
	switch *v.Type {
	case "response.output_item.added", "response.output_text.delta", "response.refusal.delta",
		"response.reasoning_summary_part.added", "response.reasoning_summary_text.delta", "response.reasoning_text.delta",
		"response.output_item.done", "response.completed", "response.failed", "response.incomplete", "error":
		return true
	}
	return false
}

// codeText is an error code as text: a JSON string as it is, a number in
// its decimal form, null or nothing as "".
func codeText(raw json.RawMessage) string {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return ""
	}
	switch c := v.(type) {
	case string:
		return c
	case float64:
		return strconv.FormatFloat(c, 'f', -1, 64)
	}
	return ""
}

// deltaSlot returns the slot a delta belongs to, making one when the
// server did not announce the item first.
func deltaSlot(rp *replay, pos int, kind ItemType, upstreamID string) *slot {
	if s := rp.lookup(pos); s != nil {
		return s
	}
	return rp.item(pos, kind, upstreamID)
}

// completedResponse maps the final response; item ids are the caller's.
func completedResponse(r *responsesResponse, req *Request, rp *replay, done []Item) *Response {
	out := &Response{ID: r.ID, Usage: Usage{
		InputTokens:       r.Usage.InputTokens,
		CachedInputTokens: r.Usage.InputTokensDetails.CachedTokens,
		OutputTokens:      r.Usage.OutputTokens,
		ReasoningTokens:   r.Usage.OutputTokensDetails.ReasoningTokens,
	}}
	for pos := range r.Output {
		it, ok := outputItem(&r.Output[pos])
		if !ok {
			continue
		}
		if s := rp.lookup(pos); s != nil && s.kind == it.Type {
			it.ID = s.id
		}
		out.Output = append(out.Output, fromFunctionCall(req, it))
	}
	if len(out.Output) == 0 {
		// Some compatible servers send a bare response.completed; the
		// items then come from output_item.done.
		for _, it := range done {
			if it.Type != "" {
				out.Output = append(out.Output, it)
			}
		}
	}
	return out
}

// outputItem converts an output item the client understands.
func outputItem(o *responsesOutputItem) (Item, bool) {
	it := Item{Type: ItemType(o.Type), ID: o.ID}
	switch it.Type {
	case ItemMessage:
		it.Role = o.Role
		if it.Role == "" {
			it.Role = RoleAssistant
		}
		it.Phase = o.Phase
		var b strings.Builder
		for _, c := range o.Content {
			switch c.Type {
			case "output_text":
				b.WriteString(c.Text)
			case "refusal":
				b.WriteString(c.Refusal)
				it.Refused = true
			}
		}
		it.Text = b.String()
	case ItemFunctionCall:
		it.CallID, it.Name, it.Arguments = o.CallID, o.Name, rawString(o.Arguments)
	case ItemCustomToolCall:
		it.CallID, it.Name, it.Input = o.CallID, o.Name, o.Input
	case ItemReasoning:
		for _, s := range o.Summary {
			it.Summary = append(it.Summary, s.Text)
		}
		for _, c := range o.Content {
			if c.Type == "reasoning_text" {
				it.ReasoningText = append(it.ReasoningText, c.Text)
			}
		}
		it.EncryptedContent = o.EncryptedContent
	case ItemWebSearchCall:
		// Kept as it came, to be sent back (see wireInputItem).
		it.Status, it.Action = o.Status, o.Action
	default:
		// Items of hosted tools agent-ls does not offer, or of kinds it
		// does not know: nothing to show or answer, and the API would not
		// take them back in a form we do not know. Dropped.
		return Item{}, false
	}
	return it, true
}

// rawString is a JSON string's text; JSON of another kind (arguments some
// servers send as an object) as it is; null or nothing as "".
func rawString(raw json.RawMessage) string {
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	return string(raw)
}
