package app

import (
	"context"
	"errors"

	"github.com/agent-ls/agent-ls/internal/acp"
	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/mcp"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// acpAgent is the agent of an ACP connection: the editor agent's
// manager, settings and kept sessions, the kept sessions listed by the
// folder the client names, and the MCP servers a client names for a
// session.
type acpAgent struct {
	*editorAgent
	// promptsChanged tells the connection that the prompts of the
	// session's servers changed (acp.Config.PromptsChanged); nil: nobody.
	promptsChanged func()
}

// ListSessions lists the kept sessions, those of cwd (the connection's
// when "") first (acp.Agent).
func (a acpAgent) ListSessions(cwd string) ([]agent.SessionSummary, error) {
	if cwd == "" {
		cwd = a.cwd
	}
	return a.keptSessions(cwd)
}

// Forget drops a closed session from the manager and releases its
// record, which another agent-ls may then resume.
func (a acpAgent) Forget(id string) error {
	if err := a.Manager.Forget(id); err != nil {
		return err
	}
	if a.root.sessions != nil {
		a.root.sessions.Release(id)
	}
	return nil
}

// MCPServers starts the MCP servers a client names for one session, as a
// set of their own over a registry of their own: their tools are that
// session's alone, beside those of the configured servers. They get the
// same treatment as configured servers (a stdio server only the core
// environment and the env the client gave; calls approved per tool),
// never approval = "auto". A server named like a configured one, or like
// another of the list, is left out.
func (a acpAgent) MCPServers(cwd string, servers []acp.MCPServer, failed func(string, error)) acp.SessionServers {
	configured := map[string]bool{}
	for name := range a.root.currentSettings().MCPServers {
		configured[mcp.ToolName(name, "")] = true
	}
	seen := map[string]bool{}
	var cfgs []mcp.ServerConfig
	for _, s := range servers {
		c := mcp.ServerConfig{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, HTTPHeaders: s.Headers}
		if c.Stdio() {
			c.Cwd = cwd
		}
		key := mcp.ToolName(s.Name, "")
		switch err := c.Validate(); {
		case err != nil:
			failed(s.Name, errors.Unwrap(err))
		case configured[key]:
			failed(s.Name, errors.New("the configuration has an MCP server of that name ([mcp_servers]), whose tools are offered instead"))
		case seen[key]:
			failed(s.Name, errors.New("another server of the session has that name"))
		default:
			seen[key] = true
			cfgs = append(cfgs, c)
		}
	}
	if len(cfgs) == 0 {
		return nil
	}
	reg, err := tools.NewRegistry()
	if err == nil {
		var set *mcp.Set
		opts := mcp.Options{Registry: reg, Logger: a.log, ClientVersion: version, Failed: failed, PromptsChanged: a.promptsChanged, Parent: a.root.mcp}
		if set, err = mcp.NewSet(cfgs, opts); err == nil {
			// The session's servers are offered its folder as their root.
			set.SetRoots(mcp.RootsOf(cwd))
			return &sessionMCP{Set: set, reg: reg}
		}
	}
	for _, c := range cfgs {
		failed(c.Name, err)
	}
	return nil
}

// sessionMCP are the MCP servers of one ACP session and the registry
// their tools go to.
type sessionMCP struct {
	*mcp.Set
	reg *tools.Registry
}

// Snapshot returns the servers' tools as they are now.
func (s *sessionMCP) Snapshot() *tools.Snapshot { return s.reg.Snapshot() }

// PromptServers, Prompts and GetPrompt offer the servers' prompts as the
// session's slash commands (agent.PromptSource).
func (s *sessionMCP) PromptServers() []string { return mcpPrompts{s.Set}.PromptServers() }

// Prompts are the servers' prompts now.
func (s *sessionMCP) Prompts() []agent.Prompt { return mcpPrompts{s.Set}.Prompts() }

// GetPrompt expands a server's prompt.
func (s *sessionMCP) GetPrompt(ctx context.Context, server, name string, args map[string]string) ([]agent.PromptMessage, error) {
	return mcpPrompts{s.Set}.GetPrompt(ctx, server, name, args)
}
