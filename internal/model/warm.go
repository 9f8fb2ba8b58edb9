package model

import (
	"encoding/json"
)

// Warm builds, ahead of the first request, what encoding/json builds by
// reflection the first time it meets a type: the encoders of a request
// body of the wire API named (WireResponses or WireChat) and the decoders
// of its stream's events. Built on the first request, they are on the
// way to the first word a user sees (about 0.2 ms each way); a front end
// calls Warm from a goroutine while it waits for the user instead. It
// sends nothing.
func Warm(wireAPI string) {
	req := &Request{Model: "m", Instructions: "i", ReasoningEffort: "low", ReasoningSummary: "auto",
		Input: []Item{{Type: ItemMessage, Role: "user", Text: "hi"}},
		Tools: []Tool{{Type: ToolFunction, Name: "f", Description: "d", Parameters: json.RawMessage(`{"type":"object"}`)}}}
	if wireAPI == WireChat {
		if p, err := newChatBody(req); err == nil {
			marshalBody(p)
		}
		for _, l := range warmChatEvents {
			var ev chatChunk
			json.Unmarshal([]byte(l), &ev)
		}
		return
	}
	if p, err := newResponsesBody(req); err == nil {
		marshalBody(p)
	}
	for _, l := range warmResponsesEvents {
		var ev responsesEvent
		json.Unmarshal([]byte(l), &ev)
		if len(ev.Item) > 0 {
			var it responsesOutputItem
			json.Unmarshal(ev.Item, &it)
		}
	}
}

// The events of a short streamed answer, as the servers send them.
var (
	warmResponsesEvents = []string{
		`{"type":"response.created","sequence_number":0,"response":{"id":"r","status":"in_progress","usage":null}}`,
		`{"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"type":"message","id":"m","status":"in_progress","role":"assistant","content":[]}}`,
		`{"type":"response.output_text.delta","sequence_number":2,"output_index":0,"content_index":0,"item_id":"m","delta":"hi"}`,
		`{"type":"response.output_item.done","sequence_number":3,"output_index":0,"item":{"type":"message","id":"m","status":"completed","role":"assistant","content":[{"type":"output_text","text":"hi","annotations":[]}]}}`,
		`{"type":"response.completed","sequence_number":4,"response":{"id":"r","status":"completed","usage":{"input_tokens":1,"input_tokens_details":{"cached_tokens":0},"output_tokens":1,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":2}}}`,
	}
	warmChatEvents = []string{
		`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"},"finish_reason":null}]}`,
		`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
	}
)
