package app

import (
	"io"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/acp"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/mcp"
)

// TestACPSessionServers: the servers a client names become a set of
// their own; those that cannot be started as given (no command or url, a
// URL that is not http, a name a configured server or an earlier one of
// the list has, also once sanitized) are told to failed and left out.
func TestACPSessionServers(t *testing.T) {
	r := &root{settings: Settings{Resolved: &config.Resolved{Config: config.Config{MCPServers: map[string]config.MCPServer{"github": {Command: "gh-mcp"}}}}}}
	a := acpAgent{editorAgent: &editorAgent{root: r, log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
	failed := map[string]string{}
	servers := a.MCPServers("/w", []acp.MCPServer{
		{Name: "files", Command: "files-mcp", Env: map[string]string{"TOKEN": "x"}},
		{Name: "re_mote", URL: "http://127.0.0.1:9/mcp", Headers: map[string]string{"X-Token": "y"}},
		{Name: "github", Command: "other-gh"},
		{Name: "files", Command: "again"},
		{Name: "re mote", URL: "http://127.0.0.1:9/mcp"},
		{Name: "empty"},
		{Name: "ftp", URL: "ftp://example.com/"},
	}, func(name string, err error) { failed[name] = err.Error() })
	if servers == nil {
		t.Fatal("no servers")
	}
	defer servers.Close()
	var names []string
	for _, st := range servers.(*sessionMCP).Status() {
		names = append(names, st.Name)
	}
	if !slices.Equal(names, []string{"files", "re_mote"}) {
		t.Errorf("servers %q", names)
	}
	// The session's servers are offered its folder as their root.
	if roots := servers.(*sessionMCP).Roots(); len(roots) != 1 || roots[0] != (mcp.Root{URI: "file:///w", Name: "w"}) {
		t.Errorf("roots %+v", roots)
	}
	for name, want := range map[string]string{
		"github":  "the configuration has an MCP server of that name",
		"files":   "another server of the session has that name",
		"re mote": "another server of the session has that name",
		"empty":   "set command",
		"ftp":     "is not an http(s) URL",
	} {
		if !strings.Contains(failed[name], want) {
			t.Errorf("%s: %q, want %q", name, failed[name], want)
		}
	}
	if len(servers.Snapshot().Names()) != 0 {
		t.Error("tools before any server started")
	}
	if none := a.MCPServers("/w", []acp.MCPServer{{Name: "github", Command: "x"}}, func(string, error) {}); none != nil {
		t.Errorf("a set with no server left: %v", none)
	}
}
