package model

import (
	"encoding/json"
	"testing"
)

// The samples Warm decodes are events the stream readers read: were one
// to stop decoding, Warm would build less than it claims.
func TestWarmSamplesDecode(t *testing.T) {
	for _, l := range warmResponsesEvents {
		var ev responsesEvent
		if err := json.Unmarshal([]byte(l), &ev); err != nil || ev.Type == "" {
			t.Errorf("%s: %v (type %q)", l, err, ev.Type)
		}
		if len(ev.Item) > 0 {
			var it responsesOutputItem
			if err := json.Unmarshal(ev.Item, &it); err != nil || it.Type != "message" {
				t.Errorf("item of %s: %v", l, err)
			}
		}
	}
	for _, l := range warmChatEvents {
		var ev chatChunk
		if err := json.Unmarshal([]byte(l), &ev); err != nil || len(ev.Choices) != 1 {
			t.Errorf("%s: %v", l, err)
		}
	}
	Warm(WireResponses)
	Warm(WireChat)
}
