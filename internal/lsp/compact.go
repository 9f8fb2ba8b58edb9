package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/event"
)

// methodCompact summarises a session's older history now (protocol
// section 2).
const methodCompact = "agent/compact"

type compactParams struct {
	SessionID string `json:"sessionId"`
}

// compact answers agent/compact once the compaction has ended. It runs as
// a turn of its own (turnStarted with the prompt "/compact", compacted,
// turnCompleted), so the session runs nothing else meanwhile and
// agent/interrupt stops it; a cancelled request stops it too.
func (s *server) compact(ctx context.Context, params []byte) (any, error) {
	var p compactParams
	if err := decodeParams(methodCompact, params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: sessionId is required", methodCompact)
	}
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	turn, err := a.Compact(p.SessionID)
	if err != nil {
		return nil, agentError(err)
	}
	s.convs.started(p.SessionID, turn.ID())
	select {
	case <-turn.Done():
	case <-ctx.Done():
		if err := a.Interrupt(p.SessionID, turn.ID()); err != nil {
			s.log.Debug("interrupting a cancelled compaction", "session", p.SessionID, "err", err)
		}
		return nil, protocol.ErrRequestCancelled
	}
	// The turn's events go out before the answer (see beginTurn).
	if err := s.out.drained(ctx); err != nil {
		return nil, protocol.ErrRequestCancelled
	}
	switch res := turn.Result(); res.Status {
	case event.StatusCompleted:
		return struct{}{}, nil
	case event.StatusInterrupted:
		return nil, jsonrpc2.NewError(codeRequestFailed, "the compaction was interrupted; the history is as it was")
	default:
		return nil, jsonrpc2.NewError(codeRequestFailed, fmt.Sprintf("the compaction failed; the history is as it was: %s", res.Error))
	}
}
