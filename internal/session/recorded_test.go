package session

import (
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// TestRecordedTypes: a record keeps the events that complete a stream,
// not the stream's pieces: deltas, live output, a call's progress.
func TestRecordedTypes(t *testing.T) {
	for _, typ := range []event.Type{event.TypeMessageDelta, event.TypeReasoningDelta, event.TypeExecOutput, event.TypeToolProgress, event.TypeTerminalOutput, event.TypeRetry} {
		if recorded(typ) {
			t.Errorf("%s is recorded", typ)
		}
	}
	for _, typ := range []event.Type{event.TypeMessage, event.TypeToolCall, event.TypeToolResult, event.TypeTurnCompleted} {
		if !recorded(typ) {
			t.Errorf("%s is not recorded", typ)
		}
	}
}
