package lsp

import (
	"context"
	"errors"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// methodUndoTurn restores the files a turn changed (protocol section 2).
const methodUndoTurn = "agent/undoTurn"

type undoTurnParams struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
}

type undoTurnResult struct {
	Files []string `json:"files"`
}

// undoTurn answers agent/undoTurn. It runs off the read loop (handlers are
// asynchronous), since restoring open documents is a workspace/applyEdit
// the editor must answer.
func (s *server) undoTurn(ctx context.Context, params []byte) (any, error) {
	var p undoTurnParams
	if err := decodeParams(methodUndoTurn, params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" || p.TurnID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: sessionId and turnId are required", methodUndoTurn)
	}
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	paths, err := a.UndoTurn(ctx, p.SessionID, p.TurnID)
	if errors.Is(err, agent.ErrNoTurn) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if err != nil {
		return nil, agentError(err)
	}
	res := undoTurnResult{Files: []string{}}
	for _, path := range paths {
		res.Files = append(res.Files, string(uri.File(path)))
	}
	return res, nil
}
