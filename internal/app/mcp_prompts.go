package app

import (
	"context"
	"sync"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/lsp"
	"github.com/agent-ls/agent-ls/internal/mcp"
)

// mcpPrompts offers the prompts of a set of MCP servers to the agent as
// slash commands (agent.PromptSource).
type mcpPrompts struct{ set *mcp.Set }

// PromptServers are the servers whose names a slash command can start
// with.
func (p mcpPrompts) PromptServers() []string {
	var out []string
	for _, name := range p.set.Names() {
		if mcp.SlashName(name) {
			out = append(out, name)
		}
	}
	return out
}

// Prompts are the servers' prompts now.
func (p mcpPrompts) Prompts() []agent.Prompt {
	var out []agent.Prompt
	for _, sp := range p.set.Prompts() {
		for _, pr := range sp.Prompts {
			ap := agent.Prompt{Server: sp.Server, Name: pr.Name, Description: pr.Description}
			for _, a := range pr.Arguments {
				ap.Arguments = append(ap.Arguments, agent.PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
			}
			out = append(out, ap)
		}
	}
	return out
}

// GetPrompt expands a server's prompt.
func (p mcpPrompts) GetPrompt(ctx context.Context, server, name string, args map[string]string) ([]agent.PromptMessage, error) {
	msgs, err := p.set.GetPrompt(ctx, server, name, args)
	if err != nil {
		return nil, err
	}
	out := make([]agent.PromptMessage, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, agent.PromptMessage{Role: m.Role, Text: m.Text, Images: m.Images})
	}
	return out, nil
}

// promptSource is the configured servers' prompts for the agent; nil
// when there are no servers.
func (r *root) promptSource() agent.PromptSource {
	if r.mcp.Empty() {
		return nil
	}
	return mcpPrompts{r.mcp}
}

// promptWatchers are told when the prompts of the configured servers
// change (an ACP connection, which tells its sessions' clients).
type promptWatchers struct {
	mu  sync.Mutex
	fns []func()
}

func (w *promptWatchers) add(fn func()) {
	if fn == nil {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.fns = append(w.fns, fn)
}

// changed tells every watcher; it does not block (mcp.Options).
func (w *promptWatchers) changed() {
	w.mu.Lock()
	fns := append([]func(){}, w.fns...)
	w.mu.Unlock()
	for _, fn := range fns {
		fn()
	}
}

// lspPrompts are a server's prompts as agent/listMcpServers shows them.
func lspPrompts(set *mcp.Set) map[string][]lsp.MCPPrompt {
	out := map[string][]lsp.MCPPrompt{}
	for _, sp := range set.Prompts() {
		for _, p := range sp.Prompts {
			lp := lsp.MCPPrompt{Name: p.Name, Description: p.Description}
			for _, a := range p.Arguments {
				lp.Arguments = append(lp.Arguments, lsp.MCPPromptArgument{Name: a.Name, Required: a.Required})
			}
			out[sp.Server] = append(out[sp.Server], lp)
		}
	}
	return out
}
