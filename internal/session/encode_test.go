package session

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
)

// TestEncodeEventLine: an event line spliced from its header and its
// event is, byte for byte, the line json.Marshal makes of both, escapes
// and raw arguments included, and its event is last.
func TestEncodeEventLine(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for _, p := range []event.Payload{
		event.Message{ItemID: "m1", Text: "a <b> & c \u2028 d \"quoted\" \\ é 😀"},
		event.ToolCall{CallID: "c1", Tool: "shell", Kind: event.KindExecute, Title: "go test", Arguments: json.RawMessage("{ \"command\" : [\"go\", \"test\", \"<./...>\"] }")},
		event.ToolResult{CallID: "c1", Tool: "shell", Status: event.ToolCompleted, Output: "ok\n\tdone\x00", DurationMs: 12},
		event.TurnCompleted{Status: event.StatusCompleted},
		event.Usage{},
	} {
		ev := event.Event{SessionID: "s-1", TurnID: "s-1-t1", Seq: 7, Payload: p}
		full, err := ev.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		l := line{T: kindEvent, At: at, Turn: ev.TurnID, Seq: ev.Seq, Type: ev.Type(), Ev: full}
		got, err := encode(l)
		if err != nil {
			t.Fatal(err)
		}
		old, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		l.Ev = old
		want, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %s\nwant %s", ev.Type(), got, want)
		}
		if i := bytes.Index(got, evKey); i < 0 || !bytes.Equal(got[i+len(evKey):len(got)-1], old) {
			t.Errorf("%s: the event is not last: %s", ev.Type(), got)
		}
	}
}
