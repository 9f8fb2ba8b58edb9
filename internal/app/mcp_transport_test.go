package app

import (
	"bytes"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/mcp"
)

// A url server's transport goes from the config to the server set; one
// agent-ls does not know is a problem for the user, and the server is
// not started.
func TestMCPServersTransport(t *testing.T) {
	s := Settings{Resolved: &config.Resolved{}}
	s.MCPServers = map[string]config.MCPServer{
		"old":  {URL: "https://old.example/sse", Transport: config.MCPTransportSSE},
		"new":  {URL: "https://new.example/mcp"},
		"odd":  {URL: "https://odd.example/mcp", Transport: "websocket"},
		"pipe": {Command: "srv", Transport: config.MCPTransportSSE},
	}
	cfgs, _, problems := s.mcpServers()
	if len(cfgs) != 2 || cfgs[0].Name != "new" || cfgs[0].Transport != "" || cfgs[1].Name != "old" || cfgs[1].Transport != mcp.TransportSSE {
		t.Errorf("servers %+v", cfgs)
	}
	if len(problems) != 2 || !strings.Contains(problems[0], `unknown transport "websocket"`) || !strings.Contains(problems[1], "is for a url server") {
		t.Errorf("problems %q", problems)
	}
}

// mcp list says which transport a url server connected over.
func TestMCPListShowsTransport(t *testing.T) {
	s := Settings{Resolved: &config.Resolved{}}
	s.MCPServers = map[string]config.MCPServer{"old": {URL: "https://old.example/sse"}}
	var out bytes.Buffer
	printMCPList(&out, []mcpListEntry{{Name: "old", State: string(mcp.StateReady), Transport: mcp.TransportSSE, Tools: []string{"echo"}}}, s)
	if want := "old: ready (url https://old.example/sse, transport sse)\n"; !strings.HasPrefix(out.String(), want) {
		t.Errorf("got %q, want %q first", out.String(), want)
	}
}
