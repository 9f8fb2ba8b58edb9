package agent

import (
	"context"
	"errors"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// Errors of the session and turn API. Frontends map them to their own
// error codes (the language server: ErrUnknownSession → InvalidParams,
// ErrTurnRunning → RequestFailed).
var (
	ErrUnknownSession = errors.New("unknown session")
	ErrTurnRunning    = errors.New("a turn is already running in this session")
	ErrNoTurn         = errors.New("no turn is running in this session")
)

// Frontend is whoever drives the agent: the language server for editors,
// the terminal for exec, a fake in tests. Its three duties are required:
// a frontend that compiles implements the whole contract.
type Frontend interface {
	// Event delivers one turn event. Events of one session arrive in seq
	// order. Event must not block for long: it is called from the turn.
	Event(ev event.Event)
	// RequestApproval asks the user to decide req and returns one of
	// req.Options, or Abort. ctx ends when the turn is interrupted; an
	// error or an empty decision rejects. A frontend with nobody to ask
	// returns RejectOnce.
	RequestApproval(ctx context.Context, req *ApprovalRequest) (string, error)
	// ApplyChanges applies cs all or nothing and reports applied true, or
	// reports applied false (and no error) to leave it to the agent, which
	// writes the changes to disk. A *workspace.RejectedError means the
	// editor refused it, or a file changed since it was read, and nothing
	// changed. After it applied, later reads through the workspace view
	// see the new contents; a document the user has unsaved edits in gets
	// the change in its buffer only, and workspace.NotOnDisk(cs) names
	// those files, whose saved version is what commands see. A
	// *workspace.UnconfirmedError means the editor said it applied the
	// change but did not show the new text of some files; it says what
	// each holds.
	ApplyChanges(ctx context.Context, cs *workspace.ChangeSet) (applied bool, err error)
}

// SessionOptions are the per-session settings a frontend may choose; empty
// fields take the manager's defaults.
type SessionOptions struct {
	Cwd            string
	Model          string
	ApprovalPolicy policy.ApprovalPolicy
	SandboxMode    policy.SandboxMode
	// ReasoningEffort overrides the defaults' model_reasoning_effort.
	ReasoningEffort string
	// Mode is how the session works: ModeDefault ("" too) or ModePlan
	// (plan.go).
	Mode Mode
	// Tools are tools of this session alone (the MCP servers a client
	// names for it), offered beside the manager's registry; nil means
	// none. Whoever made them stops them.
	Tools SessionTools
	// Folders are workspace folders of this session besides Cwd (ACP's
	// additionalDirectories, exec's --add-dir), absolute; with the
	// defaults' Folders they make the session's workspace (folders.go).
	Folders []string
	// Network narrows the network of the session's workspace-write
	// commands (ACP's config option network): it never gives more than
	// the defaults' NetworkMode; "" takes the defaults'.
	Network policy.NetworkMode
}

// SessionInfo describes a session (the result of agent/newSession).
type SessionInfo struct {
	SessionID string `json:"sessionId"`
	Cwd       string `json:"cwd"`
	Model     string `json:"model"`
	// Provider names the model provider the session talks to (the
	// config's model_provider); "" when none is named.
	Provider       string                `json:"provider,omitempty"`
	ApprovalPolicy policy.ApprovalPolicy `json:"approvalPolicy"`
	SandboxMode    policy.SandboxMode    `json:"sandboxMode"`
	// Mode is the session's mode, ModeDefault or ModePlan (a record of
	// an older agent-ls has none: the default mode).
	Mode Mode `json:"mode,omitempty"`
	// NetworkChoice is the network the session chose for itself
	// (SessionOptions.Network), kept with its record; "" when it chose
	// none.
	NetworkChoice policy.NetworkMode `json:"network,omitempty"`
	// Network is the network of the session's workspace-write commands
	// (off, ask or on): the defaults' narrowed by NetworkChoice.
	// Frontends show it; it is not part of the protocol's session info.
	Network policy.NetworkMode `json:"-"`
	// NetworkLimit is the configuration's network, the widest the
	// session may choose.
	NetworkLimit policy.NetworkMode `json:"-"`
}

// TurnInput is what the user gives a turn.
type TurnInput struct {
	Prompt string
	// Context is editor context sent with the prompt, such as a selection.
	Context []ContextItem
	// Images are data URLs of images attached to the prompt.
	Images []string
}

// ContextItem is a piece of a file the user pointed at.
type ContextItem struct {
	// Path is the file's absolute path.
	Path string
	// StartLine and EndLine are 1-based and inclusive; zero means the
	// whole file.
	StartLine, EndLine int
	// Text is the content of that range, as the editor has it.
	Text string
	// Diagnostics are the editor's messages for the range, if any.
	Diagnostics []string
}
