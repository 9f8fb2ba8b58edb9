package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// The methods of plan mode (protocol section 10, "while it works").
const (
	methodSetMode     = "agent/setMode"
	methodApprovePlan = "agent/approvePlan"
)

// Moder switches a session between the default mode and plan mode.
// agent.Manager implements it.
type Moder interface {
	// SetMode switches the session's mode from its next turn on.
	SetMode(sessionID string, mode agent.Mode) error
	// ApprovePlan ends plan mode and starts (or, behind a running turn,
	// queues) the turn that carries out the plan.
	ApprovePlan(sessionID string) (agent.Submitted, error)
}

type modeParams struct {
	SessionID string  `json:"sessionId"`
	Mode      *string `json:"mode"`
}

type approvePlanResult struct {
	TurnID string `json:"turnId"`
	// Queued: a turn runs, and the approval waits for it.
	Queued bool `json:"queued,omitempty"`
}

// modeMethod handles agent/setMode and agent/approvePlan.
func (s *server) modeMethod(ctx context.Context, method string, params []byte) (any, error) {
	var p modeParams
	if err := decodeParams(method, params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: sessionId is required", method)
	}
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	if method == methodSetMode {
		if p.Mode == nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: mode is required", method)
		}
		if err := a.SetMode(p.SessionID, agent.Mode(*p.Mode)); err != nil {
			return nil, modeError(err)
		}
		return struct{}{}, nil
	}
	sub, err := a.ApprovePlan(p.SessionID)
	if err != nil {
		return nil, modeError(err)
	}
	if !sub.Queued {
		s.convs.started(p.SessionID, sub.TurnID)
	}
	s.convs.setCurrent(p.SessionID)
	return approvePlanResult{TurnID: sub.TurnID, Queued: sub.Queued}, nil
}

// modeError maps the mode errors: an unknown mode is a bad parameter; a
// session not in plan mode, or with no plan yet, a request that cannot
// be carried out now.
func modeError(err error) error {
	if errors.Is(err, agent.ErrUnknownMode) {
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	return queueError(err)
}
