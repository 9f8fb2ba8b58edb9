package lsp

import (
	"fmt"
	"reflect"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

func TestProgressReportsATurn(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Progress: true})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	emit := func(p event.Payload) { h.agent.emit(turn.SessionID, turn.TurnID, p) }
	emit(event.TurnStarted{Prompt: "\n  Fix the failing test\nwith more detail below"})
	emit(event.ReasoningDelta{ItemID: "r", Delta: "a"})
	emit(event.ReasoningDelta{ItemID: "r", Delta: "b"})
	emit(event.ToolCall{CallID: "1", Tool: "read_file", Title: "Read main.go"})
	emit(event.ToolCall{CallID: "2", Tool: "shell"})
	emit(event.ToolProgress{CallID: "2", Progress: 1, Total: 4, Message: "step one"})
	emit(event.FileChange{CallID: "3", Status: event.ChangeApplied, Changes: []event.FileChangeEntry{{URI: "file:///a", Kind: event.ChangeUpdate}}})
	emit(event.Plan{Steps: []event.PlanStep{{Step: "fix", Status: event.StepCompleted}, {Step: "test", Status: event.StepInProgress}}})
	emit(event.Retry{Attempt: 1, Message: "rate limited\nretry later"})
	emit(event.Compacted{Summary: "s"})
	emit(event.MessageDelta{ItemID: "m", Delta: "Fixed"})
	emit(event.MessageDelta{ItemID: "m", Delta: "."})
	emit(event.TurnCompleted{Status: event.StatusCompleted})

	if _, err := h.ed.WaitProgress(h.ctx, func(p editor.Progress) bool { return p.Kind == "end" }); err != nil {
		t.Fatal(err)
	}
	token := "agent-ls/" + turn.SessionID + "/" + turn.TurnID
	want := []editor.Progress{
		{Token: token, Kind: "create"},
		{Token: token, Kind: "begin", Title: "Agent", Message: "Fix the failing test", Cancellable: true},
		{Token: token, Kind: "report", Message: "Thinking"},
		{Token: token, Kind: "report", Message: "Read main.go"},
		{Token: token, Kind: "report", Message: "shell"},
		{Token: token, Kind: "report", Message: "shell: 1/4 step one"},
		{Token: token, Kind: "report", Message: "Plan: test"},
		{Token: token, Kind: "report", Message: "Retrying (attempt 1): rate limited"},
		{Token: token, Kind: "report", Message: "Compacted the conversation"},
		{Token: token, Kind: "report", Message: "Writing the answer"},
		{Token: token, Kind: "end", Message: "Done (2 tool calls, 1 file changed)"},
	}
	if got := h.ed.Progress(); !reflect.DeepEqual(got, want) {
		t.Errorf("progress:\n got %+v\nwant %+v", got, want)
	}
}

func TestProgressSummaries(t *testing.T) {
	tests := []struct {
		tools, files int
		done         event.TurnCompleted
		want         string
	}{
		{0, 0, event.TurnCompleted{Status: event.StatusCompleted}, "Done"},
		{1, 0, event.TurnCompleted{Status: event.StatusCompleted}, "Done (1 tool call)"},
		{0, 0, event.TurnCompleted{Status: event.StatusInterrupted}, "Interrupted"},
		{3, 1, event.TurnCompleted{Status: event.StatusFailed, Error: "model unreachable\nstack"}, "Failed: model unreachable"},
	}
	for _, tt := range tests {
		if got := summary(tt.tools, tt.files, tt.done); got != tt.want {
			t.Errorf("summary = %q, want %q", got, tt.want)
		}
	}
}

func TestProgressCancelInterruptsTheTurn(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Progress: true, Events: true})
	turn := h.startTurn(map[string]any{"prompt": "long"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnStarted{Prompt: "long"})
	begin, err := h.ed.WaitProgress(h.ctx, func(p editor.Progress) bool { return p.Kind == "begin" })
	if err != nil {
		t.Fatal(err)
	}
	if err := h.ed.CancelProgress(h.ctx, begin.Token); err != nil {
		t.Fatal(err)
	}
	if k := <-h.agent.interrupted; k != (turnKey{turn.SessionID, turn.TurnID}) {
		t.Errorf("interrupted %v", k)
	}
	end, err := h.ed.WaitProgress(h.ctx, func(p editor.Progress) bool { return p.Kind == "end" })
	if err != nil {
		t.Fatal(err)
	}
	if end.Message != "Interrupted" || end.Token != begin.Token {
		t.Errorf("end %+v", end)
	}
	done, err := h.ed.WaitTurnCompleted(h.ctx, turn.TurnID)
	if err != nil || done.Status != string(event.StatusInterrupted) {
		t.Errorf("turnCompleted %+v, %v", done, err)
	}
	// A cancel for a token that is gone changes nothing.
	if err := h.ed.CancelProgress(h.ctx, begin.Token); err != nil {
		t.Fatal(err)
	}
	h.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "next"})
}

// TestProgressUnansweredCreate: an editor that never answers
// window/workDoneProgress/create must not hold up the turn's events, and
// the turn goes without progress.
func TestProgressUnansweredCreate(t *testing.T) {
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.NeverAnswer = []string{"window/workDoneProgress/create"}
	})
	h.initialize(editor.Options{Progress: true, Events: true})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnStarted{Prompt: "go"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.ToolCall{CallID: "1", Tool: "shell", Title: "ls"})
	h.agent.complete(turn.SessionID, turn.TurnID, event.StatusCompleted)
	if _, err := h.ed.WaitTurnCompleted(h.ctx, turn.TurnID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.ed.WaitProgress(h.ctx, func(p editor.Progress) bool { return p.Kind == "create" }); err != nil {
		t.Fatal(err)
	}
	for _, p := range h.ed.Progress() {
		if p.Kind != "create" {
			t.Errorf("progress without an accepted token: %+v", p)
		}
	}

	// The next turn is served the same way.
	next := h.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "again"})
	h.agent.emit(next.SessionID, next.TurnID, event.TurnStarted{Prompt: "again"})
	h.agent.complete(next.SessionID, next.TurnID, event.StatusCompleted)
	if _, err := h.ed.WaitTurnCompleted(h.ctx, next.TurnID); err != nil {
		t.Fatal(err)
	}
}

func TestNoProgressWithoutCapability(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnStarted{Prompt: "go"})
	h.agent.complete(turn.SessionID, turn.TurnID, event.StatusCompleted)
	if _, err := h.ed.WaitTurnCompleted(h.ctx, turn.TurnID); err != nil {
		t.Fatal(err)
	}
	if p := h.ed.Progress(); len(p) != 0 {
		t.Errorf("progress sent to a client without window.workDoneProgress: %+v", p)
	}
}

// TestProgressCreateTimesOut: the server gives up on an unanswered token
// request after Options.ProgressTimeout and cancels it.
func TestProgressCreateTimesOut(t *testing.T) {
	c := newRawClient(t, func(o *Options) { o.ProgressTimeout = 50 * time.Millisecond })
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"window":{"workDoneProgress":true},"experimental":{"agent":{"events":true}}}}}`)
	c.expectResult(1)
	a := <-c.agent
	c.send(`{"jsonrpc":"2.0","id":2,"method":"agent/startTurn","params":{"prompt":"go"}}`)
	turn := c.expectResult(2).(map[string]any)
	sid, tid := turn["sessionId"].(string), turn["turnId"].(string)
	a.emit(sid, tid, event.TurnStarted{Prompt: "go"})

	// The event goes out at once; the token request beside it.
	var create map[string]any
	for range 2 {
		m := c.read().(map[string]any)
		switch m["method"] {
		case "window/workDoneProgress/create":
			create = m
		case "agent/event":
		default:
			t.Fatalf("unexpected %v", m)
		}
	}
	if create == nil {
		t.Fatal("no token request")
	}
	cancel := c.read().(map[string]any)
	if cancel["method"] != "$/cancelRequest" || fmt.Sprint(cancel["params"].(map[string]any)["id"]) != fmt.Sprint(create["id"]) {
		t.Fatalf("expected the token request to be cancelled, got %v", cancel)
	}

	// A late answer brings no progress: between the next two events
	// nothing else is sent.
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%v,"result":null}`, create["id"]))
	a.emit(sid, tid, event.ToolCall{CallID: "1", Tool: "shell", Title: "ls"})
	a.complete(sid, tid, event.StatusCompleted)
	a.emit(sid, tid, event.Usage{InputTokens: 1})
	for _, want := range []string{"toolCall", "turnCompleted", "usage"} {
		m := c.read().(map[string]any)
		if m["method"] != "agent/event" || m["params"].(map[string]any)["type"] != want {
			t.Fatalf("expected the %s event, got %v", want, m)
		}
	}
}
