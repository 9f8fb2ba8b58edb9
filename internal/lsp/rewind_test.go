package lsp

import (
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// TestRewindForPlainClients: "Agent: Rewind last turn" is offered while
// the current conversation has a turn to rewind; agent.rewind without
// arguments rewinds its last turn and says what it did, conflicts
// included.
func TestRewindForPlainClients(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	var session map[string]any
	if err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": commandNewSession}, &session); err != nil {
		t.Fatal(err)
	}
	sid := session["sessionId"].(string)
	params := map[string]any{"textDocument": map[string]string{"uri": string(uri.File("/ws/a.txt"))},
		"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}, "context": map[string]any{}}
	if got := strings.Join(titles(codeActions(t, h, params)), "|"); !strings.Contains(got, "Agent: Rewind last turn") {
		t.Fatalf("actions %s", got)
	}
	var res rewindResult
	if err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": commandRewind}, &res); err != nil {
		t.Fatal(err)
	}
	if len(h.agent.rewinds) != 1 || h.agent.rewinds[0] != (rewindCall{sessionID: sid}) {
		t.Errorf("rewinds %+v", h.agent.rewinds)
	}
	if len(res.Files) != 1 || res.Files[0] != string(uri.File("/ws/a.txt")) || len(res.Conflicts) != 1 || res.Conflicts[0].URI != string(uri.File("/ws/b.txt")) {
		t.Errorf("result %+v", res)
	}
	if _, err := h.ed.WaitMessage(h.ctx, func(m protocol.ShowMessageParams) bool {
		return strings.Contains(m.Message, "rewound 1 turn(s); 1 file(s) restored") && strings.Contains(m.Message, "conflict, left as it is: /ws/b.txt")
	}); err != nil {
		t.Errorf("no message says what the rewind did: %v (%+v)", err, h.ed.Messages())
	}
	if got := strings.Join(titles(codeActions(t, h, params)), "|"); strings.Contains(got, "Rewind") {
		t.Errorf("rewind still offered with no turn left: %s", got)
	}
}

// TestRewindMethod: agent/rewind with a prompt answers the new turn's id;
// without a session it is refused, and with no turn left too.
func TestRewindMethod(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	var session map[string]any
	if err := h.ed.Request(h.ctx, methodNewSession, map[string]any{}, &session); err != nil {
		t.Fatal(err)
	}
	sid := session["sessionId"].(string)
	var res rewindResult
	if err := h.ed.Request(h.ctx, methodRewind, map[string]any{"sessionId": sid, "turnId": "t1", "prompt": "again, better"}, &res); err != nil {
		t.Fatal(err)
	}
	if res.TurnID != "t2" || h.agent.rewinds[0] != (rewindCall{sid, "t1", "again, better"}) {
		t.Errorf("result %+v, calls %+v", res, h.agent.rewinds)
	}
	err := h.ed.Request(h.ctx, methodRewind, map[string]any{"turnId": "t1"}, &res)
	if msg := rpcError(t, err, int64(jsonrpc2.InvalidParams)); !strings.Contains(msg, "sessionId is required") {
		t.Errorf("without a session: %q", msg)
	}
	err = h.ed.Request(h.ctx, methodRewind, map[string]any{"sessionId": sid}, &res)
	if msg := rpcError(t, err, int64(jsonrpc2.InvalidParams)); !strings.Contains(msg, "no turn") {
		t.Errorf("with no turn left: %q", msg)
	}
}
