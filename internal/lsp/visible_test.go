package lsp

import (
	"context"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// hostile is model text that would act on a terminal or mislead the eye:
// a carriage return and an erase-line that paint a harmless command over
// the real one, an OSC 52 clipboard write, a screen clear, C1 CSI, and a
// bidi override.
const hostile = "rm -rf ~ \r\x1b[2K? run ls -la\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\u009b2J \u202eexe.txt"

// shown fails when s, which the editor shows to the user, still has a
// character textcut.Visible escapes.
func shown(t *testing.T, what, s string) {
	t.Helper()
	if v := textcut.Visible(s); v != s {
		t.Errorf("%s carries raw control or bidi characters: %q", what, s)
	}
}

// The plain approval box shows the command as it runs, one shell word per
// argument, with its control characters written out; nothing in it acts
// on the screen.
func TestApprovalMessageShowsTheRealCommand(t *testing.T) {
	var seen *protocol.ShowMessageRequestParams
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.ShowMessageRequest = func(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
			seen = p
			return &protocol.MessageActionItem{Title: "Reject"}, nil
		}
	})
	h.initialize(editor.Options{MessageActionItems: true})
	for _, req := range []*agent.ApprovalRequest{
		{Kind: agent.ApprovalExec, Command: []string{"sh", "-c", hostile}, Cwd: "/repo\n\x1b[2Kin /safe", Reason: "why: " + hostile},
		{Kind: agent.ApprovalPatch, Files: []string{"/r/a\u202egpj.go", "/r/b\nagent-ls wants to change 0 file(s)"},
			Diff: "--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-x\n+" + hostile + "\n"},
		{Kind: agent.ApprovalTool, Tool: "t\x1b[2J", Server: "s\r", Arguments: []byte(`{"a":"` + "\u202e\u2066" + `"}`)},
	} {
		if _, err := h.agent.cfg.Frontend.RequestApproval(h.ctx, req); err != nil {
			t.Fatal(err)
		}
		shown(t, "the approval message", seen.Message)
	}
	h.agent.cfg.Frontend.RequestApproval(h.ctx, &agent.ApprovalRequest{Kind: agent.ApprovalExec, Command: []string{"sh", "-c", hostile}, Cwd: "/repo"})
	want := `agent-ls wants to run: sh -c $'rm -rf ~ \r\x1b[2K? run ls -la\x1b]52;c;cm0gLXJmIH4=\a\x1b[2J\u009b2J \u202eexe.txt'` + "\nin /repo"
	if seen.Message != want {
		t.Errorf("approval message\n%s\nwant\n%s", seen.Message, want)
	}
}

// What a client without agent/event is shown of a turn (the streamed
// answer in its log, the tool lines, the final message box) has its
// control and bidi characters escaped, its lines and tabs kept.
func TestPlainMessagesShowControlsEscaped(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	emit := func(p event.Payload) { h.agent.emit(turn.SessionID, turn.TurnID, p) }
	emit(event.TurnStarted{Prompt: "go"})
	emit(event.MessageDelta{ItemID: "m", Delta: "first\tline " + hostile + "\nsecond"})
	emit(event.Message{ItemID: "m", Text: "first\tline " + hostile + "\nsecond"})
	emit(event.ToolCall{CallID: "c", Tool: "shell", Title: "ls\x1b[2J"})
	emit(event.TurnCompleted{Status: event.StatusFailed, Error: "model said: " + hostile, LastMessage: "done " + hostile})
	waitMessage(t, h, protocol.MessageTypeInfo, "Failed")
	msgs := h.ed.Messages()
	var all []string
	for _, m := range msgs {
		shown(t, "a message", m.Message)
		all = append(all, m.Message)
	}
	text := strings.Join(all, "\n")
	for _, want := range []string{`first` + "\t" + `line rm -rf ~ \r\x1b[2K? run ls -la\x1b]52;c;cm0gLXJmIH4=\a`, "Agent: ls\\x1b[2J", `done rm -rf ~ \r\x1b[2K`, `\u202eexe.txt`} {
		if !strings.Contains(text, want) {
			t.Errorf("messages lack %q:\n%s", want, text)
		}
	}
}

// $/progress lines quote the model (tool titles, plan steps, errors):
// escaped too.
func TestProgressShowsControlsEscaped(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Progress: true})
	turn := h.startTurn(map[string]any{"prompt": "go"})
	emit := func(p event.Payload) { h.agent.emit(turn.SessionID, turn.TurnID, p) }
	emit(event.TurnStarted{Prompt: "fix \u202eit"})
	emit(event.ToolCall{CallID: "1", Tool: "shell", Title: "ls \r\x1b[2K\x1b]52;c;aGk=\a"})
	emit(event.Plan{Steps: []event.PlanStep{{Step: "step \u2066x\u2069", Status: event.StepInProgress}}})
	emit(event.Retry{Attempt: 1, Message: "busy \x1b[2J"})
	emit(event.TurnCompleted{Status: event.StatusFailed, Error: "bad \u009b2J"})
	if _, err := h.ed.WaitProgress(h.ctx, func(p editor.Progress) bool { return p.Kind == "end" }); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range h.ed.Progress() {
		shown(t, "a progress message", p.Message)
		got = append(got, p.Message)
	}
	want := `|fix \u202eit|ls \r\x1b[2K\x1b]52;c;aGk=\a|Plan: step \u2066x\u2069|Retrying (attempt 1): busy \x1b[2J|Failed: bad \u009b2J`
	if strings.Join(got, "|") != want {
		t.Errorf("progress messages\n%s\nwant\n%s", strings.Join(got, "|"), want)
	}
}
