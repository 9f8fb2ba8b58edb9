package model

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/packages/ssestream"
	"github.com/openai/openai-go/v3/responses"
)

// runResponses makes one attempt on the Responses API and maps its stream:
// output_text (and refusal) deltas become TextDelta, reasoning summary
// deltas ReasoningDelta, output_item.done ItemDone, and response.completed
// the Response. Function calls of custom tools offered as functions are
// mapped back to custom tool calls.
func (c *client) runResponses(ctx context.Context, params responses.ResponseNewParams, req *Request, at *attempt) (*Response, error) {
	stream := c.responses.NewStreaming(ctx, params, option.WithMiddleware(at.http.middleware))
	defer stream.Close()
	rp := at.replay
	var done []Item // output_item.done items by output index, a fallback for a bare response.completed
	for {
		at.idle.arm()
		ok := stream.Next()
		at.idle.disarm()
		if !ok {
			break
		}
		ev := stream.Current()
		pos := int(ev.OutputIndex)
		switch ev.Type {
		case "response.output_item.added":
			rp.item(pos, ItemType(ev.Item.Type), ev.Item.ID)
		case "response.output_text.delta", "response.refusal.delta":
			rp.delta(deltaSlot(rp, pos, ItemMessage, ev.ItemID), TextDelta, ev.Delta)
		case "response.reasoning_summary_part.added":
			if ev.SummaryIndex > 0 {
				rp.delta(deltaSlot(rp, pos, ItemReasoning, ev.ItemID), ReasoningDelta, "\n\n")
			}
		case "response.reasoning_summary_text.delta":
			rp.delta(deltaSlot(rp, pos, ItemReasoning, ev.ItemID), ReasoningDelta, ev.Delta)
		case "response.output_item.done":
			it, ok := outputItem(&ev.Item)
			if !ok {
				continue
			}
			s := rp.lookup(pos)
			if s == nil || s.kind != it.Type {
				s = rp.item(pos, it.Type, it.ID)
			}
			it.ID = s.id
			it = fromFunctionCall(req, it)
			rp.done(s, it)
			for len(done) <= pos {
				done = append(done, Item{})
			}
			done[pos] = it
		case "response.completed":
			return completedResponse(&ev.Response, req, rp, done), nil
		case "response.failed":
			e := ev.Response.Error
			msg := e.Message
			if msg == "" {
				msg = "response failed"
			}
			return nil, &Error{Code: string(e.Code), Message: msg, retryable: retryableCode(string(e.Code)), retryAfter: delayInMessage(msg)}
		case "response.incomplete":
			reason := ev.Response.IncompleteDetails.Reason
			if reason == "" {
				reason = "unknown reason"
			}
			return nil, &Error{Code: "incomplete", Message: "response incomplete: " + string(reason)}
		case "error":
			return nil, &Error{Code: ev.Code, Message: ev.Message, retryable: retryableCode(ev.Code), retryAfter: delayInMessage(ev.Message)}
		}
	}
	if err := stream.Err(); err != nil {
		var se *ssestream.StreamError
		if errors.As(err, &se) {
			return nil, streamError(se)
		}
		return nil, err
	}
	return nil, errTruncated
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
func completedResponse(r *responses.Response, req *Request, rp *replay, done []Item) *Response {
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
func outputItem(o *responses.ResponseOutputItemUnion) (Item, bool) {
	it := Item{Type: ItemType(o.Type), ID: o.ID}
	switch it.Type {
	case ItemMessage:
		it.Role = o.Role
		if it.Role == "" {
			it.Role = RoleAssistant
		}
		it.Phase = string(o.Phase)
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
		it.CallID, it.Name, it.Arguments = o.CallID, o.Name, o.Arguments.OfString
	case ItemCustomToolCall:
		it.CallID, it.Name, it.Input = o.CallID, o.Name, o.Input
	case ItemReasoning:
		for _, s := range o.Summary {
			it.Summary = append(it.Summary, s.Text)
		}
		it.EncryptedContent = o.EncryptedContent
	case ItemWebSearchCall:
		// Kept as it came, to be sent back (see webSearchInput).
		var raw struct {
			Status string          `json:"status"`
			Action json.RawMessage `json:"action"`
		}
		if err := json.Unmarshal([]byte(o.RawJSON()), &raw); err != nil {
			return Item{}, false
		}
		it.Status, it.Action = raw.Status, raw.Action
	default:
		// Items of hosted tools agent-ls does not offer, or of kinds it
		// does not know: nothing to show or answer, and the API would not
		// take them back in a form we do not know. Dropped.
		return Item{}, false
	}
	return it, true
}
