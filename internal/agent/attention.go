package agent

import "github.com/agent-ls/agent-ls/internal/event"

// Attention is a moment the user may want to hear of away from the
// conversation: a turn ended, or the agent waits on the user's answer
// (Options.Attention; the application runs the user's notify program).
type Attention struct {
	SessionID string
	TurnID    string
	Cwd       string
	// Waiting says the agent waits on the user; What says on what: an
	// approval's kind, "question" (request_user_input), "form" (an MCP
	// server's question) or "review".
	Waiting bool
	What    string
	// Command is the command an exec approval is about.
	Command []string
	// Prompt, LastMessage and Status describe a turn that ended.
	Prompt      string
	LastMessage string
	Status      event.TurnStatus
}

// attention tells Options.Attention of a, filling in the turn's session.
func (t *turn) attention(a Attention) {
	f := t.s.mgr.opts.Attention
	if f == nil {
		return
	}
	a.SessionID, a.TurnID, a.Cwd = t.s.info.SessionID, t.id, t.s.info.Cwd
	f(a)
}

// ended tells Options.Attention that t ended with status.
func (t *turn) ended(status event.TurnStatus) {
	t.attention(Attention{Prompt: t.input.Prompt, LastMessage: t.lastMessage, Status: status})
}
