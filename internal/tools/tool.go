// Package tools holds what the agent can do: the Handler interface every
// tool implements, the registry of tool sources (copy-on-write, so tools
// may come and go while turns run) that dispatches calls by name, and the
// runner that executes one model response's calls (read-only ones in
// parallel, mutating ones one at a time through a gate). Each tool lives in
// its own file with its description in an embedded .md beside it.
package tools

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// SpecType says how a tool is offered to the model.
type SpecType int

const (
	// Function tools take JSON arguments described by Parameters.
	Function SpecType = iota
	// Custom (freeform) tools take raw text, optionally constrained by a
	// grammar.
	Custom
)

// Spec describes a tool to the model.
type Spec struct {
	Type        SpecType
	Name        string
	Description string
	// Parameters is the JSON schema of a function tool's arguments.
	Parameters json.RawMessage
	// GrammarSyntax ("lark" or "regex") and Grammar constrain a custom
	// tool's input; empty means free text.
	GrammarSyntax string
	Grammar       string
	// Server names the MCP server a tool comes from and ServerTool the
	// tool's own name there; both are empty for agent-ls's own tools.
	// They are not offered to the model; events name the tool by them.
	Server     string
	ServerTool string
}

// Call is one tool call as the model made it.
type Call struct {
	CallID string
	Name   string
	// Type is the payload kind the model used: Function calls carry JSON
	// Arguments, Custom calls carry raw Input.
	Type      SpecType
	Arguments json.RawMessage
	Input     string
}

// Output is what a tool gives back to the model.
type Output struct {
	Text string
	// Failed marks an output that reports an error to the model.
	Failed bool
	// Rejected marks an action refused by policy or by the user (the
	// output says so); it implies Failed.
	Rejected bool
	// Images are data URLs shown to the model with the output.
	Images []string
}

// Env is what a tool call may use of its session and turn.
type Env struct {
	// Cwd is the session's working directory (absolute).
	Cwd string
	// Emit sends a turn event (plan, execOutput, ...) to the frontend.
	Emit func(event.Payload)
	// Files is the workspace as the user sees it (editor buffers over
	// disk); nil reads the disk.
	Files FileView
	// Boundary is the session's boundary: what lies inside the project
	// and what may be written without asking. Commands get it as their
	// sandbox policy.
	Boundary *policy.Boundary
	// Limits caps what one call may return to the model; zero fields
	// take the defaults.
	Limits OutputLimits
	// Approver decides actions (commands, file changes) by the session's
	// policies, asking the user when needed.
	Approver Approver
	// Exec configures how commands run.
	Exec ExecConfig
	// Changes applies file changes (apply_patch, write_file).
	Changes Changer
	// Asker puts the model's questions to the user (request_user_input);
	// nil when nobody can be asked.
	Asker Asker
	// Language asks the editor's language servers (the lsp_* tools);
	// nil when the client cannot answer.
	Language Language
	// Terminals are the agent session's command sessions (exec_command,
	// write_stdin); nil when it has none.
	Terminals *Terminals
	// Hooks run around each call of the turn, after the registry's
	// hooks (see Hook).
	Hooks []Hook
	// Log is the turn's logger (it carries the session and turn ids and
	// goes where --log-file says); nil logs to slog's default.
	Log *slog.Logger
}

// logger returns the logger tools log through.
func (e *Env) logger() *slog.Logger {
	if e == nil || e.Log == nil {
		return slog.Default()
	}
	return e.Log
}

// ExecConfig is how the session runs commands.
type ExecConfig struct {
	// HelperPath is the agent-ls binary that runs `sandbox ARGS...`;
	// empty means this executable.
	HelperPath string
	// Network lets sandboxed commands use the network.
	Network bool
	// Env decides which of agent-ls's environment variables a command
	// gets; the zero value passes all but those that look like
	// credentials. The sandbox adds its own afterwards (the toolchain
	// cache variables of a workspace-write command).
	Env policy.EnvPolicy
	// ExcludeTmpdirEnvVar and ExcludeSlashTmp keep $TMPDIR and /tmp
	// read-only for sandboxed commands, as the session's Boundary does for
	// file changes (sandbox.Policy has the same fields).
	ExcludeTmpdirEnvVar bool
	ExcludeSlashTmp     bool
	// CacheRoot is where sandboxed commands keep their toolchain caches;
	// empty means the sandbox's default (sandbox.Policy.CacheRoot).
	CacheRoot string
	// Sockets records the Unix sockets the session's sandboxed commands
	// bind, so that a server one command starts is reached by the next;
	// nil gives every command a registry of its own.
	Sockets *SocketRegistry
	// AllowProjectSockets lets sandboxed commands with the network off
	// reach any Unix socket below the project root, also one made
	// outside the sandbox (sandbox.Policy.AllowProjectSockets).
	AllowProjectSockets bool
	// Proxy, when set (the network setting "ask"), gives each sandboxed
	// workspace-write command an endpoint of the session's network
	// proxy (sandbox.Policy.Proxy): called with the tool call's id, the
	// terminal's id ("" for a plain command) and the command's words.
	Proxy func(callID, terminalID string, argv []string) ProxyServer
}

// ProxyServer is the network proxy as one command reaches it
// (sandbox.ProxyServer).
type ProxyServer = sandbox.ProxyServer

// SocketRegistry is the sandbox's record of the Unix sockets a session's
// commands bound (sandbox.SocketRegistry); the zero value is ready, and
// the session closes it when it ends.
type SocketRegistry = sandbox.SocketRegistry

// Handler is one tool.
type Handler interface {
	Spec() Spec
	// Kind is the event kind of the tool (event.KindRead, ...).
	Kind() event.ToolKind
	// Mutating reports whether this call may change the user's
	// environment; mutating calls run one at a time.
	Mutating(call *Call) bool
	// Title is a one-line, human-readable summary of the call.
	Title(call *Call) string
	// Handle runs the call. An error means the tool could not do what
	// was asked; it goes back to the model as a failed output. Handle
	// must return promptly once ctx is done.
	Handle(ctx context.Context, env *Env, call *Call) (Output, error)
}
