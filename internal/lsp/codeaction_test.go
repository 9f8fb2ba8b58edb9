package lsp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
)

func codeActions(t *testing.T, h *harness, params map[string]any) []map[string]any {
	t.Helper()
	var actions []map[string]any
	if err := h.ed.Request(h.ctx, protocol.MethodTextDocumentCodeAction, params, &actions); err != nil {
		t.Fatal(err)
	}
	return actions
}

func TestCodeActions(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	docURI := string(uri.File("/ws/main.go"))
	selection := map[string]any{"start": map[string]int{"line": 2, "character": 0}, "end": map[string]int{"line": 4, "character": 1}}
	params := func(ctx map[string]any) map[string]any {
		return map[string]any{"textDocument": map[string]string{"uri": docURI}, "range": selection, "context": ctx}
	}

	actions := codeActions(t, h, params(map[string]any{"diagnostics": []any{}}))
	wantTitles := []string{"Agent: Explain this", "Agent: Fix this", "Agent: Refactor this", "Agent: Write tests for this",
		"Agent: New conversation", "Agent: Show conversation"}
	if got := titles(actions); strings.Join(got, "|") != strings.Join(wantTitles, "|") {
		t.Fatalf("titles %q, want %q", got, wantTitles)
	}
	for i, a := range actions[:4] {
		if a["title"] != wantTitles[i] || a["kind"] != "refactor.rewrite" {
			t.Errorf("action %d: title %v kind %v", i, a["title"], a["kind"])
		}
		cmd := a["command"].(map[string]any)
		if cmd["command"] != "agent.startTurn" {
			t.Errorf("action %d runs %v", i, cmd["command"])
		}
		args := cmd["arguments"].([]any)
		arg := args[0].(map[string]any)
		if p, _ := arg["prompt"].(string); p == "" {
			t.Errorf("action %d has no prompt", i)
		}
		b, _ := json.Marshal(arg["context"])
		want, _ := json.Marshal([]map[string]any{{"uri": docURI, "range": selection}})
		if string(b) != string(want) {
			t.Errorf("action %d context %s, want %s", i, b, want)
		}
	}

	// With diagnostics, Fix is a quickfix that carries them into the prompt.
	diag := map[string]any{
		"range":    map[string]any{"start": map[string]int{"line": 3, "character": 1}, "end": map[string]int{"line": 3, "character": 4}},
		"severity": 1, "source": "compiler", "message": "undefined: foo",
	}
	actions = codeActions(t, h, params(map[string]any{"diagnostics": []any{diag}}))
	fix := actions[1]
	if fix["kind"] != "quickfix" || len(fix["diagnostics"].([]any)) != 1 {
		t.Errorf("fix action %v", fix)
	}
	prompt := fix["command"].(map[string]any)["arguments"].([]any)[0].(map[string]any)["prompt"].(string)
	if !strings.Contains(prompt, "line 4 error: undefined: foo (compiler)") {
		t.Errorf("fix prompt %q lacks the diagnostic", prompt)
	}

	// The client's "only" filter.
	actions = codeActions(t, h, params(map[string]any{"diagnostics": []any{diag}, "only": []string{"quickfix"}}))
	if len(actions) != 1 || actions[0]["title"] != "Agent: Fix this" {
		t.Errorf("only quickfix: %v", actions)
	}
	actions = codeActions(t, h, params(map[string]any{"diagnostics": []any{}, "only": []string{"refactor"}}))
	if len(actions) != 4 {
		t.Errorf("only refactor: %d actions", len(actions))
	}

}

func titles(actions []map[string]any) []string {
	var out []string
	for _, a := range actions {
		out = append(out, a["title"].(string))
	}
	return out
}

// actionRange is the range a turn action's command carries.
func actionRange(t *testing.T, a map[string]any) string {
	t.Helper()
	arg := a["command"].(map[string]any)["arguments"].([]any)[0].(map[string]any)
	r := arg["context"].([]any)[0].(map[string]any)["range"].(map[string]any)
	pos := func(p any) string {
		m := p.(map[string]any)
		return fmt.Sprintf("%v:%v", m["line"], m["character"])
	}
	return pos(r["start"]) + "-" + pos(r["end"])
}

// TestCodeActionsAtTheCursor: a client that sends an empty range (Neovim
// 0.7's code_action in visual mode) gets the actions for the cursor's line,
// or for the block the line opens.
func TestCodeActionsAtTheCursor(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	docURI := string(uri.File("/ws/main.go"))
	text := "package main\n\nfunc main() {\n\tx := \"héllo\"\n\n\tprintln(x)\n}\n// end"
	if err := h.ed.Open(h.ctx, docURI, "go", text); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		line, char int
		want       string
	}{
		{0, 3, "0:0-1:0"},    // a line with nothing below it
		{2, 5, "2:0-7:0"},    // a function: its body and closing brace
		{3, 2, "3:0-4:0"},    // a line in the body
		{7, 1, "7:0-7:6"},    // the last line, without a newline
		{40, 0, "40:0-41:0"}, // past the end: the line asked for
	}
	for _, tt := range tests {
		at := map[string]int{"line": tt.line, "character": tt.char}
		actions := codeActions(t, h, map[string]any{"textDocument": map[string]string{"uri": docURI},
			"range": map[string]any{"start": at, "end": at}, "context": map[string]any{"diagnostics": []any{}}})
		if len(actions) != 6 {
			t.Fatalf("line %d: %q", tt.line, titles(actions))
		}
		if got := actionRange(t, actions[0]); got != tt.want {
			t.Errorf("line %d: range %s, want %s", tt.line, got, tt.want)
		}
	}
}

// TestStopIsOfferedWhileATurnRuns: "Agent: Stop" comes and goes with the
// turn, for any range, and runs agent.interrupt with no arguments, which
// stops every running turn.
func TestStopIsOfferedWhileATurnRuns(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	docURI := string(uri.File("/ws/main.go"))
	at := map[string]int{"line": 0, "character": 0}
	params := map[string]any{"textDocument": map[string]string{"uri": docURI},
		"range": map[string]any{"start": at, "end": at}, "context": map[string]any{"diagnostics": []any{}}}
	if got := titles(codeActions(t, h, params)); slices.Contains(got, "Agent: Stop") {
		t.Fatalf("Stop offered with no turn: %q", got)
	}
	first := h.startTurn(map[string]any{"prompt": "one"})
	second := h.startTurn(map[string]any{"prompt": "two"}) // a second session
	actions := codeActions(t, h, params)
	var stop map[string]any
	for _, a := range actions {
		if a["title"] == "Agent: Stop" {
			stop = a
		}
	}
	if stop == nil {
		t.Fatalf("no Stop while turns run: %q", titles(actions))
	}
	cmd := stop["command"].(map[string]any)
	if cmd["command"] != "agent.interrupt" || cmd["arguments"] != nil {
		t.Fatalf("Stop runs %v", cmd)
	}
	if err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, cmd, nil); err != nil {
		t.Fatal(err)
	}
	got := map[turnKey]bool{<-h.agent.interrupted: true, <-h.agent.interrupted: true}
	if !got[turnKey{first.SessionID, first.TurnID}] || !got[turnKey{second.SessionID, second.TurnID}] {
		t.Errorf("interrupted %v, want both turns", got)
	}
	// The turns' turnCompleted events came before the interrupts returned.
	if got := titles(codeActions(t, h, params)); slices.Contains(got, "Agent: Stop") {
		t.Errorf("Stop still offered after the turns ended: %q", got)
	}
}

// TestCodeActionRunsATurn runs a code action's command as a plain client
// would and checks the turn gets the selection.
// runAction runs a code action's command as the editor would.
func runAction(t *testing.T, h *harness, action protocol.CommandOrCodeAction) startTurnResult {
	t.Helper()
	cmd := action.(*protocol.CodeAction).Command
	var res startTurnResult
	if err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: cmd.Command, Arguments: cmd.Arguments,
	}, &res); err != nil {
		t.Fatal(err)
	}
	return res
}

func TestCodeActionRunsATurn(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	docURI := string(uri.File("/ws/unsaved.go"))
	if err := h.ed.Open(h.ctx, docURI, "go", "package p\n\nfunc f() {}\n"); err != nil {
		t.Fatal(err)
	}
	var actions []protocol.CommandOrCodeAction
	if err := h.ed.Request(h.ctx, protocol.MethodTextDocumentCodeAction, map[string]any{
		"textDocument": map[string]string{"uri": docURI},
		"range":        map[string]any{"start": map[string]int{"line": 2, "character": 0}, "end": map[string]int{"line": 3, "character": 0}},
		"context":      map[string]any{"diagnostics": []any{}},
	}, &actions); err != nil {
		t.Fatal(err)
	}
	res := runAction(t, h, actions[0])
	if res.SessionID == "" || res.TurnID == "" {
		t.Fatalf("executeCommand = %+v", res)
	}
	in := h.agent.lastTurn()
	if in.Prompt != "Explain what this code does." || len(in.Context) != 1 || in.Context[0].Text != "func f() {}\n" ||
		in.Context[0].StartLine != 3 || in.Context[0].EndLine != 3 {
		t.Errorf("turn input %+v", in)
	}
}
