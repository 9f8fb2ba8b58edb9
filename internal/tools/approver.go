package tools

import (
	"context"
	"encoding/json"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// Approver decides, for tools that act on the user's machine, whether an
// action may go ahead, asking the user where the session's policy says
// so. The agent implements it; a nil Approver in Env means no tool may
// act.
type Approver interface {
	// Exec decides a command before it runs.
	Exec(ctx context.Context, req ExecRequest) (ExecDecision, error)
	// RetryUnsandboxed decides, after the sandbox denied a command,
	// whether to run it again without the sandbox; a refusal's Reason,
	// if any, is added to the output for the model.
	RetryUnsandboxed(ctx context.Context, req ExecRequest, output string) (Decision, error)
	// Patch decides a change to files before it is applied.
	Patch(ctx context.Context, req PatchRequest) (Decision, error)
	// Tool decides a call of a tool that acts outside agent-ls's
	// sandbox and file changes (an MCP server's) before it is made.
	Tool(ctx context.Context, req ToolRequest) (Decision, error)
}

// ExecRequest is a command a tool wants to run.
type ExecRequest struct {
	CallID  string
	Command []string
	// Cwd is the absolute directory the command runs in.
	Cwd string
	// Escalated: the model asked to run without the sandbox, saying why
	// in Justification.
	Escalated     bool
	Justification string
}

// ExecDecision says whether and how a command runs.
type ExecDecision struct {
	Decision
	// Sandboxed: run in the sandbox; false runs it without one.
	Sandboxed bool
}

// Decision is an approval's outcome.
type Decision struct {
	Allowed bool
	// Reason says why an action was refused, in words for the model.
	Reason string
}

// PatchRequest is a change to files a tool wants to make.
type PatchRequest struct {
	CallID string
	// Paths are the absolute paths the change creates, modifies, moves
	// or deletes (both ends of a move).
	Paths []string
	// Targets are Paths resolved against the session boundary, in the
	// same order: where each write really lands and whether it may go
	// ahead without asking.
	Targets []policy.Target
	// Diff is the unified diff shown to the user, Additions and Deletions
	// its line counts; Summary one line.
	Diff                 string
	Additions, Deletions int
	Summary              string
}

// ToolRequest is a call of a tool from outside agent-ls (an MCP server's
// tool) that wants to go ahead.
type ToolRequest struct {
	CallID string
	// Server is the MCP server, Tool the tool's name there.
	Server string
	Tool   string
	// Arguments are the call's arguments, valid against the tool's schema.
	Arguments json.RawMessage
	// ReadOnly: the server annotated the tool as one that does not
	// change its environment.
	ReadOnly bool
	// AutoApprove: the user's own config lets this server's tools run
	// without asking (approval = "auto").
	AutoApprove bool
}
