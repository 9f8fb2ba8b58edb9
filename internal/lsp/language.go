package lsp

import (
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// methodLanguageQuery asks the client's other language servers about
// code (capability experimental.agent.language; protocol section
// "Language queries").
const methodLanguageQuery = "agent/languageQuery"

// LanguageEncoding: a client that opted into experimental.agent.language
// answers language queries, counting positions in the negotiated
// encoding.
func (s *server) LanguageEncoding(string) (workspace.Encoding, bool) {
	caps := s.capabilities()
	return caps.PositionEncoding, caps.AgentLanguage
}

// LanguageQuery sends agent/languageQuery and returns the client's
// answer as it came. The end of ctx (the turn interrupted, the query
// timed out) cancels the request ($/cancelRequest).
func (s *server) LanguageQuery(ctx context.Context, req *agent.LanguageRequest) (json.RawMessage, error) {
	if !s.capabilities().AgentLanguage {
		return nil, fmt.Errorf("%s: the client did not opt in (experimental.agent.language)", methodLanguageQuery)
	}
	if err := s.out.drained(ctx); err != nil {
		return nil, err
	}
	var res json.RawMessage
	if err := protocol.Call(ctx, s.conn, methodLanguageQuery, req, &res); err != nil {
		return nil, fmt.Errorf("%s: %w", methodLanguageQuery, err)
	}
	return res, nil
}

var _ agent.Languages = (*server)(nil)
