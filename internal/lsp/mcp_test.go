package lsp

import (
	"encoding/json"
	"testing"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// TestListMCPServers: agent/listMcpServers gives each server's state,
// error, tools, prompts and the tail of its stderr as one string.
func TestListMCPServers(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	h.agent.mu.Lock()
	h.agent.mcp = []MCPServer{
		{Name: "broken", State: "failed", Error: "exited at startup", Tools: nil, StderrTail: []string{"starting", "fatal: no database"}},
		{Name: "fs", State: "ready", Tools: []string{"read_text_file"}, Prompts: []MCPPrompt{
			{Name: "review", Description: "Review the code", Arguments: []MCPPromptArgument{{Name: "focus", Required: true}, {Name: "depth"}}},
			{Name: "plain"}}},
	}
	h.agent.mu.Unlock()
	var res json.RawMessage
	if err := h.ed.Request(h.ctx, methodListMCPServers, map[string]any{}, &res); err != nil {
		t.Fatal(err)
	}
	want := `{"servers":[{"name":"broken","state":"failed","error":"exited at startup","tools":[],"prompts":[],"stderrTail":"starting\nfatal: no database"},` +
		`{"name":"fs","state":"ready","tools":["read_text_file"],"prompts":[{"name":"review","description":"Review the code",` +
		`"arguments":[{"name":"focus","required":true},{"name":"depth","required":false}]},{"name":"plain","arguments":[]}]}]}`
	if string(res) != want {
		t.Errorf("result\n%s\nwant\n%s", res, want)
	}
}
