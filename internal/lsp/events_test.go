package lsp

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

// everyEvent is one event of each type of protocol section 3 and the
// fields the editor must read from it.
var everyEvent = []struct {
	payload event.Payload
	want    editor.Event
}{
	{event.TurnStarted{Prompt: "go"}, editor.Event{Prompt: "go"}},
	{event.ReasoningDelta{ItemID: "r1", Delta: "hm"}, editor.Event{ItemID: "r1", Delta: "hm"}},
	{event.Reasoning{ItemID: "r1", Text: "hmm"}, editor.Event{ItemID: "r1", Text: "hmm"}},
	{event.MessageDelta{ItemID: "m1", Delta: "Hel"}, editor.Event{ItemID: "m1", Delta: "Hel"}},
	{event.Message{ItemID: "m1", Text: "Hello"}, editor.Event{ItemID: "m1", Text: "Hello"}},
	{event.ToolCall{CallID: "c1", Tool: "shell", Kind: event.KindExecute, Title: "go test", Arguments: json.RawMessage(`{"cmd":["go","test"]}`)},
		editor.Event{CallID: "c1", Tool: "shell", Kind: string(event.KindExecute), Title: "go test", Arguments: json.RawMessage(`{"cmd":["go","test"]}`)}},
	{event.ExecOutput{CallID: "c1", Stream: "stdout", Chunk: "ok\n"}, editor.Event{CallID: "c1", Stream: "stdout", Chunk: "ok\n"}},
	{event.ToolResult{CallID: "c1", Tool: "shell", Status: event.ToolCompleted, Output: "ok", DurationMs: 12},
		editor.Event{CallID: "c1", Tool: "shell", Status: string(event.ToolCompleted), Output: "ok", DurationMs: 12}},
	{event.FileChange{CallID: "c2", Changes: []event.FileChangeEntry{{URI: "file:///a", Kind: event.ChangeMove, NewURI: "file:///b", Additions: 1, Deletions: 2}}, Diff: "--- a", Status: event.ChangeApplied},
		editor.Event{CallID: "c2", Changes: []editor.FileChange{{URI: "file:///a", Kind: event.ChangeMove, NewURI: "file:///b", Additions: 1, Deletions: 2}}, Diff: "--- a", Status: string(event.ChangeApplied)}},
	{event.Plan{Explanation: "why", Steps: []event.PlanStep{{Step: "one", Status: event.StepInProgress}}},
		editor.Event{Explanation: "why", Steps: []editor.PlanStep{{Step: "one", Status: event.StepInProgress}}}},
	{event.Approval{ApprovalID: "a1", Kind: "exec", Decision: "allowOnce"}, editor.Event{ApprovalID: "a1", Kind: "exec", Decision: "allowOnce"}},
	{event.Usage{InputTokens: 1, CachedInputTokens: 2, OutputTokens: 3, ReasoningTokens: 4, ContextWindow: 5},
		editor.Event{InputTokens: 1, CachedInputTokens: 2, OutputTokens: 3, ReasoningTokens: 4, ContextWindow: 5}},
	{event.Retry{Attempt: 2, DelayMs: 500, Message: "503"}, editor.Event{Attempt: 2, DelayMs: 500, Message: "503"}},
	{event.Compacted{Summary: "sum", TokensBefore: 100, TokensAfter: 10}, editor.Event{Summary: "sum", TokensBefore: 100, TokensAfter: 10}},
	{event.TurnCompleted{Status: event.StatusFailed, Error: "boom", LastMessage: "last", Diff: "diff"},
		editor.Event{Status: string(event.StatusFailed), Error: "boom", LastMessage: "last", Diff: "diff"}},
}

func TestEventsReachOptedInClients(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	for _, e := range everyEvent {
		h.agent.emit(turn.SessionID, turn.TurnID, e.payload)
	}
	if _, err := h.ed.WaitTurnCompleted(h.ctx, turn.TurnID); err != nil {
		t.Fatal(err)
	}
	got := h.ed.Events()
	if len(got) != len(everyEvent) {
		t.Fatalf("%d events, want %d", len(got), len(everyEvent))
	}
	for i, e := range everyEvent {
		want := e.want
		want.SessionID, want.TurnID, want.Seq, want.Type = turn.SessionID, turn.TurnID, int64(i+1), e.payload.EventType()
		g := got[i]
		if len(g.Raw) == 0 {
			t.Errorf("event %d has no raw JSON", i)
		}
		g.Raw = nil
		if !reflect.DeepEqual(g, want) {
			t.Errorf("event %d:\n got %+v\nwant %+v", i, g, want)
		}
	}
}

func TestEventsKeepTheirOrder(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	const n = 2000
	for i := range n {
		h.agent.emit(turn.SessionID, turn.TurnID, event.MessageDelta{ItemID: "m", Delta: fmt.Sprint(i)})
	}
	h.agent.complete(turn.SessionID, turn.TurnID, event.StatusCompleted)
	if _, err := h.ed.WaitTurnCompleted(h.ctx, turn.TurnID); err != nil {
		t.Fatal(err)
	}
	// Deltas may be coalesced when the client falls behind; seq still
	// rises by one per event received and the text is all there, in order.
	var want, got strings.Builder
	for i := range n {
		want.WriteString(fmt.Sprint(i))
	}
	evs := h.ed.Events()
	for i, ev := range evs {
		if ev.Seq != int64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
		got.WriteString(ev.Delta)
	}
	if got.String() != want.String() {
		t.Errorf("deltas joined differ from those sent")
	}
	if last := evs[len(evs)-1]; last.Type != event.TypeTurnCompleted {
		t.Errorf("last event %s", last.Type)
	}
}

func TestNoEventsWithoutOptIn(t *testing.T) {
	h := newHarness(t)
	// Progress is the sync point: it follows the events on the same path.
	h.initialize(editor.Options{Events: false, Progress: true})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	for _, e := range everyEvent {
		h.agent.emit(turn.SessionID, turn.TurnID, e.payload)
	}
	if _, err := h.ed.WaitProgress(h.ctx, func(p editor.Progress) bool { return p.Kind == "end" }); err != nil {
		t.Fatal(err)
	}
	if evs := h.ed.Events(); len(evs) != 0 {
		t.Errorf("a client without experimental.agent.events got %d agent/event notifications", len(evs))
	}
}
