package app

import (
	"bytes"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// TestTermShowsProgress: exec shows an MCP call's progress on stderr, one
// line each, and prints it in its JSON stream.
func TestTermShowsProgress(t *testing.T) {
	var out, errw bytes.Buffer
	f := newTermFrontend(&out, &errw, false)
	f.Event(event.Event{Payload: event.ToolProgress{CallID: "c", Progress: 2, Total: 5, Message: "indexing"}})
	if errw.String() != "  … 2/5 indexing\n" || out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q", errw.String(), out.String())
	}
	out.Reset()
	f = newTermFrontend(&out, &errw, true)
	f.Event(event.Event{SessionID: "s", TurnID: "t", Seq: 3, Payload: event.ToolProgress{CallID: "c", Progress: 1}})
	if out.String() != `{"sessionId":"s","turnId":"t","seq":3,"type":"toolProgress","callId":"c","progress":1}`+"\n" {
		t.Errorf("json %q", out.String())
	}
}
