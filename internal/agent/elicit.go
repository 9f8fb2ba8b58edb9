package agent

import (
	"context"

	"github.com/agent-ls/agent-ls/internal/elicit"
)

// Elicitor is a Frontend that can put an MCP server's question (a form,
// elicitation/create) to the user of a session. A frontend that is not
// one has every question declined.
type Elicitor interface {
	// Elicit asks the user req and returns the answer: elicit.Accept
	// with content (checked again against req.Schema before it goes to
	// the server), elicit.Decline or elicit.Cancel. ctx ends when the
	// call ends (the turn is interrupted); the question is then
	// withdrawn and cancelled.
	Elicit(ctx context.Context, req *ElicitRequest) (elicit.Result, error)
}

// ElicitRequest is a server's question to the user of a session, during
// one of its tool calls.
type ElicitRequest struct {
	SessionID string
	TurnID    string
	elicit.Request
}

// Elicit puts a server's question to the session's user through the
// frontend (the MCP client's mcp.Elicitor). An interrupt cancels it; a
// frontend that cannot ask, or fails to, declines it.
func (a turnApprover) Elicit(ctx context.Context, req elicit.Request) (elicit.Result, error) {
	t := a.t
	fe, ok := t.s.mgr.opts.Frontend.(Elicitor)
	if !ok {
		return elicit.Result{Action: elicit.Decline}, nil
	}
	t.attention(Attention{Waiting: true, What: "form"})
	res, err := fe.Elicit(ctx, &ElicitRequest{SessionID: t.s.info.SessionID, TurnID: t.id, Request: req})
	switch {
	case ctx.Err() != nil:
		return elicit.Result{Action: elicit.Cancel}, nil
	case err != nil:
		t.s.mgr.log.Warn("an MCP server's question could not be asked; declined", "server", req.Server, "err", err)
		return elicit.Result{Action: elicit.Decline}, nil
	}
	return res, nil
}
