package agent

import (
	"context"

	"github.com/agent-ls/agent-ls/internal/tools"
)

// CallStarter is a Frontend that shows when a call that may wait for an
// approval (a command, a change, an MCP server's tool) starts to run. An
// ACP client shows such a call pending until then, and some clients hide
// pending calls: without this, a command that runs without a question
// and prints nothing would stay invisible until it ends.
type CallStarter interface {
	// CallStarted says the call goes ahead: the policy, an "always"
	// answer or the user allowed it. It comes after the call's toolCall
	// event and before its output, in the order of the session's events.
	CallStarted(sessionID, callID string)
}

// startingApprover is a turn's approver that tells a CallStarter frontend
// when a call is allowed, so starts to run.
type startingApprover struct{ turnApprover }

func (a startingApprover) Exec(ctx context.Context, req tools.ExecRequest) (tools.ExecDecision, error) {
	d, err := a.turnApprover.Exec(ctx, req)
	if d.Allowed {
		a.t.callStarted(req.CallID)
	}
	return d, err
}

func (a startingApprover) Patch(ctx context.Context, req tools.PatchRequest) (tools.Decision, error) {
	d, err := a.turnApprover.Patch(ctx, req)
	if d.Allowed {
		a.t.callStarted(req.CallID)
	}
	return d, err
}

func (a startingApprover) Tool(ctx context.Context, req tools.ToolRequest) (tools.Decision, error) {
	d, err := a.turnApprover.Tool(ctx, req)
	if d.Allowed {
		a.t.callStarted(req.CallID)
	}
	return d, err
}

// callStarted tells a CallStarter frontend that callID starts, in order
// with the session's events.
func (t *turn) callStarted(callID string) {
	cs, ok := t.s.mgr.opts.Frontend.(CallStarter)
	if !ok || callID == "" {
		return
	}
	t.s.emitMu.Lock()
	defer t.s.emitMu.Unlock()
	cs.CallStarted(t.s.info.SessionID, callID)
}
