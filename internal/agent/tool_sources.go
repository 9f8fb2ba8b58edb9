package agent

import (
	"context"

	"github.com/agent-ls/agent-ls/internal/tools"
)

// ToolSources are tools that come from outside agent-ls and take time to
// start (the tools of MCP servers, which register themselves in the tool
// registry once they run).
type ToolSources interface {
	// Start starts the sources in the background; calls after the first
	// do nothing. It never blocks.
	Start()
	// Ready waits until every source still starting runs or has failed
	// (each within its own startup timeout), or ctx ends, so the next
	// model request offers the tools of all that started.
	Ready(ctx context.Context)
}

// SessionTools are tools of one session alone, beside the manager's
// registry (Options.Tools): the MCP servers a client names for one
// session (ACP's session/new). The session starts them when it starts;
// before each model request it waits for those still starting, like
// ToolSources, and offers the tools of Snapshot with the registry's. A
// tool named like one of the registry is not offered: the registry's
// stays.
type SessionTools interface {
	ToolSources
	// Snapshot returns the session's tools as they are now.
	Snapshot() *tools.Snapshot
}
