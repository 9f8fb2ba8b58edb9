package lsp

import (
	"encoding/json"
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
	wantTitles := []string{"Agent: Explain this", "Agent: Fix this", "Agent: Refactor this", "Agent: Write tests for this"}
	if len(actions) != len(wantTitles) {
		t.Fatalf("got %d actions: %v", len(actions), actions)
	}
	for i, a := range actions {
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

	// An empty selection offers nothing.
	empty := map[string]any{"start": map[string]int{"line": 2, "character": 3}, "end": map[string]int{"line": 2, "character": 3}}
	actions = codeActions(t, h, map[string]any{"textDocument": map[string]string{"uri": docURI}, "range": empty, "context": map[string]any{"diagnostics": []any{}}})
	if len(actions) != 0 {
		t.Errorf("empty selection: %v", actions)
	}
}

// TestCodeActionRunsATurn runs a code action's command as a plain client
// would and checks the turn gets the selection.
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
	cmd := actions[0].(*protocol.CodeAction).Command
	var res startTurnResult
	if err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
		Command: cmd.Command, Arguments: cmd.Arguments,
	}, &res); err != nil {
		t.Fatal(err)
	}
	if res.SessionID == "" || res.TurnID == "" {
		t.Fatalf("executeCommand = %+v", res)
	}
	in := h.agent.lastTurn()
	if in.Prompt != "Explain what this code does." || len(in.Context) != 1 || in.Context[0].Text != "func f() {}\n" ||
		in.Context[0].StartLine != 3 || in.Context[0].EndLine != 3 {
		t.Errorf("turn input %+v", in)
	}
}
