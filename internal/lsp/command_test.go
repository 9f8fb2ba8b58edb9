package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
)

func TestExecuteCommand(t *testing.T) {
	h := newHarness(t)
	root := t.TempDir()
	h.initialize(editor.Options{WorkspaceFolders: []string{root}})
	execute := func(command string, args ...any) (map[string]any, error) {
		var res map[string]any
		err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": command, "arguments": args}, &res)
		return res, err
	}

	session, err := execute(commandNewSession)
	if err != nil || session["sessionId"] == "" || session["cwd"] == "" {
		t.Fatalf("agent.newSession = %v, %v", session, err)
	}
	sid := session["sessionId"].(string)
	if h.agent.session(sid).Cwd != root {
		t.Errorf("session cwd %q", h.agent.session(sid).Cwd)
	}

	turn, err := execute(commandStartTurn, map[string]any{"sessionId": sid, "prompt": "do it"})
	if err != nil || turn["sessionId"] != sid || turn["turnId"] == "" {
		t.Fatalf("agent.startTurn = %v, %v", turn, err)
	}
	if h.agent.lastTurn().Prompt != "do it" {
		t.Errorf("turn input %+v", h.agent.lastTurn())
	}
	// A prompt while the turn runs waits for it.
	again, err := execute(commandStartTurn, map[string]any{"sessionId": sid, "prompt": "again"})
	if err != nil || again["queued"] != true || again["turnId"] == turn["turnId"] {
		t.Fatalf("agent.startTurn while a turn runs = %v, %v; want it queued", again, err)
	}

	res, err := execute(commandInterrupt, map[string]any{"sessionId": sid})
	if err != nil || len(res) != 0 {
		t.Fatalf("agent.interrupt = %v, %v", res, err)
	}
	<-h.agent.interrupted

	tests := []struct {
		command string
		args    []any
		says    string
	}{
		{"agent.explode", nil, "unknown command"},
		{commandStartTurn, nil, "takes one argument"},
		{commandStartTurn, []any{"a string"}, "expected an object"},
		{commandStartTurn, []any{map[string]any{}}, "prompt is required"},
		{commandInterrupt, []any{map[string]any{"turnId": "t"}}, "sessionId is required"},
	}
	for _, tt := range tests {
		_, err := execute(tt.command, tt.args...)
		if msg := rpcError(t, err, int64(jsonrpc2.InvalidParams)); !strings.Contains(msg, tt.says) {
			t.Errorf("%s %v: message %q does not say %q", tt.command, tt.args, msg, tt.says)
		}
	}
}
