package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/tools"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// Languages is a Frontend whose client answers questions about code with
// the editor's language servers (the lsp_* tools). A frontend that is
// not one, or whose client cannot answer, is never offered the tools.
type Languages interface {
	// LanguageEncoding reports whether the client of session sessionID
	// answers language queries, and the position encoding it counts
	// characters in.
	LanguageEncoding(sessionID string) (workspace.Encoding, bool)
	// LanguageQuery asks the client and returns its answer (the LSP
	// result of req.Kind as JSON). ctx ends when the turn is interrupted
	// or the query times out: the request is then cancelled.
	LanguageQuery(ctx context.Context, req *LanguageRequest) (json.RawMessage, error)
}

// LanguageRequest is one question to the editor's language servers, as
// agent/languageQuery carries it.
type LanguageRequest struct {
	SessionID string             `json:"sessionId"`
	TurnID    string             `json:"turnId"`
	CallID    string             `json:"callId,omitempty"`
	Kind      tools.LanguageKind `json:"kind"`
	// URI is the file:// URI of the file asked about, if any.
	URI                string             `json:"uri,omitempty"`
	Position           *tools.LSPPosition `json:"position,omitempty"`
	Query              string             `json:"query,omitempty"`
	NewName            string             `json:"newName,omitempty"`
	IncludeDeclaration *bool              `json:"includeDeclaration,omitempty"`
}

// DefaultLanguageQueryTimeout bounds one language query when the config
// says nothing (language_query_timeout_ms).
const DefaultLanguageQueryTimeout = 10 * time.Second

// languages is the session's Languages frontend and its encoding, if its
// client answers language queries.
func (s *session) languages() (Languages, workspace.Encoding, bool) {
	fe, ok := s.mgr.opts.Frontend.(Languages)
	if !ok {
		return nil, 0, false
	}
	enc, ok := fe.LanguageEncoding(s.info.SessionID)
	return fe, enc, ok
}

// languageTools is snap with the lsp_* tools offered only where the
// client can answer them; elsewhere a call of one is told why not.
func (s *session) languageTools(snap *tools.Snapshot) *tools.Snapshot {
	if _, _, ok := s.languages(); ok {
		return snap
	}
	return snap.Unoffered(tools.LanguageToolNames...)
}

// turnLanguage is the tools.Language of one turn: the frontend, with the
// configured timeout on each query.
type turnLanguage struct {
	t   *turn
	fe  Languages
	enc workspace.Encoding
}

// language is the turn's tools.Language, or nil when the client cannot
// answer.
func (t *turn) language() tools.Language {
	fe, enc, ok := t.s.languages()
	if !ok {
		return nil
	}
	return turnLanguage{t: t, fe: fe, enc: enc}
}

func (l turnLanguage) Encoding() workspace.Encoding { return l.enc }

func (l turnLanguage) Query(ctx context.Context, callID string, q *tools.LanguageQuery) (json.RawMessage, error) {
	s := l.t.s
	req := &LanguageRequest{SessionID: s.info.SessionID, TurnID: l.t.id, CallID: callID, Kind: q.Kind,
		Position: q.Position, Query: q.Query, NewName: q.NewName, IncludeDeclaration: q.IncludeDeclaration}
	if q.Path != "" {
		req.URI = string(uri.File(q.Path))
	}
	timeout := s.cfg.LanguageQueryTimeout
	if timeout <= 0 {
		timeout = DefaultLanguageQueryTimeout
	}
	qctx, cancel := context.WithTimeoutCause(ctx, timeout, errLanguageTimeout)
	defer cancel()
	raw, err := l.fe.LanguageQuery(qctx, req)
	switch {
	case ctx.Err() != nil:
		return nil, fmt.Errorf("the %s query was cancelled: %w", q.Kind, ctx.Err())
	case errors.Is(context.Cause(qctx), errLanguageTimeout):
		return nil, fmt.Errorf("the editor's language servers did not answer the %s query within %s (language_query_timeout_ms): the language server may still be starting or does not handle this file; try again later or use grep_files and read_file", q.Kind, timeout)
	case err != nil:
		return nil, fmt.Errorf("the editor could not answer the %s query: %w", q.Kind, err)
	}
	return raw, nil
}

var errLanguageTimeout = errors.New("language query timed out")
