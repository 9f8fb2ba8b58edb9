package acp

import (
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// commandUpdates are the available_commands_update the client got, each
// as its commands' names, descriptions and hints.
func commandUpdates(rec *recorder) []string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var out []string
	for _, u := range rec.updates {
		if u.AvailableCommandsUpdate == nil {
			continue
		}
		var b strings.Builder
		for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
			b.WriteString("/" + c.Name)
			if strings.Contains(c.Name, ":") {
				b.WriteString(" (" + c.Description)
				if c.Input != nil && c.Input.Unstructured != nil {
					b.WriteString("; " + c.Input.Unstructured.Hint)
				}
				b.WriteString(")")
			}
		}
		out = append(out, b.String())
	}
	return out
}

// TestPromptCommands: the MCP servers' prompts are slash commands
// <server>:<prompt> beside agent-ls's own, with their description and
// the arguments as the input's hint; a change of the prompts sends the
// commands again, and only when they changed.
func TestPromptCommands(t *testing.T) {
	fa := &fakeAgent{prompts: []agent.Prompt{{Server: "docs", Name: "review", Description: "Review\x1b[2Jcode",
		Arguments: []agent.PromptArgument{{Name: "focus", Required: true}, {Name: "depth"}}}}}
	var changed func()
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe, changed = c.Frontend, c.PromptsChanged; return fa, nil }})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	wait := func(n int) []string {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for len(commandUpdates(rec)) < n && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		return commandUpdates(rec)
	}
	got := wait(1)
	if len(got) != 1 || got[0] != `/undo/rewind/new/approve/steer/terminals/kill/docs:review (Review\x1b[2Jcode; <focus> [depth=…])` {
		t.Fatalf("commands %q", got)
	}
	changed() // nothing changed: nothing sent
	fa.mu.Lock()
	fa.prompts = append(fa.prompts, agent.Prompt{Server: "docs", Name: "pair", Arguments: []agent.PromptArgument{{Name: "a", Required: true}, {Name: "b", Required: true}}},
		agent.Prompt{Server: "web", Name: "plain"})
	fa.mu.Unlock()
	changed()
	got = wait(2)
	want := `/undo/rewind/new/approve/steer/terminals/kill/docs:review (Review\x1b[2Jcode; <focus> [depth=…])/docs:pair (The prompt pair of the MCP server docs; a=… b=…)` +
		`/web:plain (The prompt plain of the MCP server web)`
	if len(got) != 2 || got[1] != want {
		t.Errorf("commands %q", got)
	}
}
