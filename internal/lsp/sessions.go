package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// The methods that list and bring back kept sessions (protocol section 2).
const (
	methodListSessions  = "agent/listSessions"
	methodResumeSession = "agent/resumeSession"
)

// listSessionsResult carries the agent's summaries as they are, with
// each cwd written as a file URI and the times in UTC.
type listSessionsResult struct {
	Sessions []agent.SessionSummary `json:"sessions"`
}

type resumeSessionParams struct {
	SessionID string `json:"sessionId"`
}

type resumeSessionResult struct {
	SessionID string            `json:"sessionId"`
	Cwd       string            `json:"cwd"`
	Model     string            `json:"model"`
	Mode      agent.Mode        `json:"mode"`
	Items     []json.RawMessage `json:"items"`
}

// listSessions answers agent/listSessions: the sessions of the
// workspace first, most recent first.
func (s *server) listSessions() (any, error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	list, err := a.ListSessions()
	if err != nil {
		return nil, agentError(err)
	}
	res := listSessionsResult{Sessions: make([]agent.SessionSummary, 0, len(list))}
	for _, l := range list {
		l.Cwd, l.CreatedAt, l.UpdatedAt = string(uri.File(l.Cwd)), l.CreatedAt.UTC(), l.UpdatedAt.UTC()
		res.Sessions = append(res.Sessions, l)
	}
	return res, nil
}

// resumeSession answers agent/resumeSession: the session is brought back
// (if it is not live already), becomes current, and its transcript is
// written anew from its record.
func (s *server) resumeSession(ctx context.Context, params []byte) (any, error) {
	var p resumeSessionParams
	if err := decodeParams(methodResumeSession, params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: sessionId is required", methodResumeSession)
	}
	rs, err := s.resume(ctx, p.SessionID)
	if err != nil {
		return nil, err
	}
	return encodeResumed(rs)
}

// encodeResumed writes the answer to agent/resumeSession as the bytes
// that go on the wire. A long session's items are megabytes of JSON the
// record holds already checked (see agent.ResumedSession): the answer is
// built around them where they were read (rs.Array), or they are copied
// once into it, instead of through the encoder, which would check and
// copy each of them again, the most of a resume's time.
func encodeResumed(rs *agent.ResumedSession) (json.RawMessage, error) {
	head, err := json.Marshal(resumeSessionResult{SessionID: rs.Info.SessionID, Cwd: string(uri.File(rs.Info.Cwd)), Model: rs.Info.Model, Mode: cmpMode(rs.Info.Mode)})
	if err != nil {
		return nil, err
	}
	// head ends with "items":null}.
	head = append(bytes.TrimSuffix(head, []byte(`null}`)), '[')
	size := len(head) + len(`]}`)
	for i, it := range rs.Items {
		if len(it) < 2 || it[0] != '{' || it[len(it)-1] != '}' {
			return nil, fmt.Errorf("%s: history item %d of session %s is not a JSON object", methodResumeSession, i, rs.Info.SessionID)
		}
		size += len(it) + 1
	}
	if rs.Array != nil {
		// Built where the items were read: no copy of them.
		return rs.Array(head, []byte("]}")), nil
	}
	b := append(make([]byte, 0, size), head...)
	for i, it := range rs.Items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	return append(b, "]}"...), nil
}

// resume brings a session back and makes it current.
func (s *server) resume(ctx context.Context, sessionID string) (*agent.ResumedSession, error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	rs, err := a.ResumeSession(ctx, sessionID)
	if err != nil {
		return nil, agentError(err)
	}
	s.out.push(outItem{rewrite: &transcriptRewrite{session: rs.Info.SessionID, items: rs.Items}})
	s.convs.setCurrent(rs.Info.SessionID)
	return rs, nil
}

// currentSession is the workspace's current session: the one this
// connection made current, or else, once per connection, the most
// recent kept session of the workspace, brought back (protocol section
// 7.1: the conversation goes on after a restart). "" when there is none.
func (s *server) currentSession(ctx context.Context) string {
	c := s.convs
	c.lookMu.Lock()
	defer c.lookMu.Unlock()
	if id := c.Current(); id != "" || c.looked {
		return id
	}
	c.looked = true
	a, err := s.theAgent()
	if err != nil {
		return ""
	}
	id, err := a.LatestSession()
	if err != nil || id == "" {
		if err != nil {
			s.log.Warn("the workspace's last session cannot be found", "err", err)
		}
		return ""
	}
	if _, err := s.resume(ctx, id); err != nil {
		s.log.Warn("the workspace's last session cannot be resumed; starting a new one", "session", id, "err", err)
		return ""
	}
	return id
}
