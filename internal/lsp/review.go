package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// methodRequestReview asks a client that reviews changes (capability
// experimental.agent.review) about a change set before it is applied
// (protocol section 5.3).
const methodRequestReview = "agent/requestReview"

// ReviewChanges is the agent.Reviewer of a client that reviews changes:
// agent/requestReview, answered when the user has decided. The turn's end
// (an interrupt) cancels the request ($/cancelRequest), so a client that
// never answers holds the turn only until it is interrupted. Checking the
// answer and applying what it accepts are the agent's.
func (s *server) ReviewChanges(ctx context.Context, req *agent.ReviewRequest) (*agent.ReviewAnswer, error) {
	if err := s.out.drained(ctx); err != nil {
		return nil, err
	}
	var ans agent.ReviewAnswer
	if err := protocol.Call(ctx, s.conn, methodRequestReview, req, &ans); err != nil {
		return nil, fmt.Errorf("%s: %w", methodRequestReview, err)
	}
	return &ans, nil
}

var _ agent.Reviewer = (*server)(nil)
