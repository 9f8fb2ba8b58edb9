package agent

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/event"
)

// Approval decisions (protocol section 6). The user picks one of the
// first five; the last two record what the policy decided on its own.
const (
	AllowOnce    = "allowOnce"
	AllowAlways  = "allowAlways"
	RejectOnce   = "rejectOnce"
	RejectAlways = "rejectAlways"
	Abort        = "abort"
	AutoAllow    = "autoAllow"
	AutoReject   = "autoReject"
)

// ApprovalKind says what an approval request is about (protocol
// section 6).
type ApprovalKind string

// Approval kinds.
const (
	// ApprovalExec: a command (Command, Cwd).
	ApprovalExec ApprovalKind = "exec"
	// ApprovalPatch: a change to files (Files, Diff).
	ApprovalPatch ApprovalKind = "patch"
	// ApprovalTool: a call of any other tool (Tool, Arguments), such as
	// one an MCP server offers.
	ApprovalTool ApprovalKind = "tool"
)

// ApprovalRequest asks the user to decide an action.
type ApprovalRequest struct {
	SessionID  string
	TurnID     string
	ApprovalID string
	// CallID is the tool call the approval is for ("" when unknown).
	CallID string
	Kind   ApprovalKind
	// Command and Cwd describe an exec; Files and Diff a patch.
	Command []string
	Cwd     string
	Files   []string
	Diff    string
	// Additions and Deletions count the lines the patch adds and removes.
	Additions, Deletions int
	// Reason says why the agent asks, in words for the user.
	Reason string
	// Tool and Arguments describe a tool call; Server names the MCP
	// server the tool belongs to (Tool is its name there).
	Tool      string
	Server    string
	Arguments json.RawMessage
	// Host and Port are the host a network question is about, NetCommand
	// the command that connects (quoted), Patterns the allowed_domains
	// entries an "allowPersist" answer may write (the first is written).
	Host       string
	Port       int
	NetCommand string
	Patterns   []string
	// Pattern is the frontend's to set with an "allowPersist" answer:
	// the one of Patterns the user chose to write ("" the first). One
	// that is not among Patterns is not written.
	Pattern string
	// Options are the decisions the user may pick.
	Options []string
	// Always says, in words for the user, what an "always" answer (allow
	// or reject) covers for the rest of the session, so the question
	// says it: for a command, this exact command in this folder with this
	// sandbox request; for a patch, these files; for a tool, this tool.
	Always string
}

// askUser puts a request to the frontend and reports the outcome as an
// approval event. No answer, an error or an interrupt rejects; "abort"
// also ends the turn.
func (t *turn) askUser(ctx context.Context, req *ApprovalRequest) (string, error) {
	req.SessionID, req.TurnID, req.ApprovalID = t.s.info.SessionID, t.id, t.nextApprovalID()
	req.Options = []string{AllowOnce, AllowAlways, RejectOnce, RejectAlways}
	decision := RejectOnce
	t.attention(Attention{Waiting: true, What: string(req.Kind), Command: req.Command})
	d, err := t.s.mgr.opts.Frontend.RequestApproval(ctx, req)
	switch {
	case ctx.Err() != nil:
		decision = Abort
	case err != nil:
		t.s.mgr.log.Warn("approval request failed; rejecting", "approval", req.ApprovalID, "err", err)
	case d == AllowOnce, d == AllowAlways, d == RejectOnce, d == RejectAlways, d == Abort:
		decision = d
	case d != "":
		t.s.mgr.log.Warn("unknown approval decision; rejecting", "approval", req.ApprovalID, "decision", d)
	}
	t.emit(event.Approval{ApprovalID: req.ApprovalID, Kind: string(req.Kind), Decision: decision})
	if decision == Abort {
		t.interrupted.Store(true)
		t.cancel()
		return Abort, ctx.Err()
	}
	return decision, nil
}

func rejection(decision string) string {
	switch decision {
	case RejectAlways:
		return "rejected: the user declined this and anything like it for the rest of the session; do not ask again, find another way or stop"
	case Abort:
		return "aborted: the user stopped the turn"
	}
	return "rejected: the user declined this action; find another way, or ask the user how to proceed"
}

func (t *turn) nextApprovalID() string {
	return fmt.Sprintf("%s-a%d", t.id, t.approvals.Add(1))
}
