package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// methodRewind takes a session back to before one of its turns (protocol
// section 10, rewind); commandRewind is the same for plain clients, with
// every argument optional.
const (
	methodRewind  = "agent/rewind"
	commandRewind = "agent.rewind"
)

// Rewinder takes sessions back to earlier turns. agent.Manager
// implements it.
type Rewinder interface {
	// Rewind takes the session back to before turnID ("" the last turn,
	// a number the N-th) and, with prompt, starts a new turn.
	Rewind(ctx context.Context, sessionID, turnID, prompt string) (agent.RewindResult, error)
	// Checkpoints are the session's turns as rewinds see them.
	Checkpoints(sessionID string) ([]agent.TurnCheckpoint, error)
}

type rewindParams struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	Prompt    string `json:"prompt"`
}

type rewindIssue struct {
	URI    string `json:"uri"`
	Reason string `json:"reason"`
}

type rewindResult struct {
	Files       []string      `json:"files"`
	Conflicts   []rewindIssue `json:"conflicts"`
	NotRestored []rewindIssue `json:"notRestored"`
	// Rewound are the turns that left the conversation.
	Rewound []string `json:"rewound"`
	TurnID  string   `json:"turnId,omitempty"`
}

// rewindMethod answers agent/rewind. It runs off the read loop: open
// documents are restored through workspace/applyEdit.
func (s *server) rewindMethod(ctx context.Context, params []byte) (any, error) {
	var p rewindParams
	if err := decodeParams(methodRewind, params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: sessionId is required", methodRewind)
	}
	return s.rewind(ctx, p)
}

// rewindCommand is agent.rewind: the current conversation's last turn
// unless the argument names others; the outcome is told as a message.
func (s *server) rewindCommand(ctx context.Context, hasArgument bool, argument func(any) error) (any, error) {
	var p rewindParams
	if hasArgument {
		if err := argument(&p); err != nil {
			return nil, err
		}
	}
	if p.SessionID == "" {
		p.SessionID = s.currentSession(ctx)
	}
	if p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: no conversation to rewind", commandRewind)
	}
	res, err := s.rewind(ctx, p)
	if err != nil {
		return nil, err
	}
	s.notice(ctx, protocol.MessageTypeInfo, rewindSummary(res))
	return res, nil
}

func (s *server) rewind(ctx context.Context, p rewindParams) (*rewindResult, error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	res, err := a.Rewind(ctx, p.SessionID, p.TurnID, p.Prompt)
	if errors.Is(err, agent.ErrUnknownSession) {
		// A kept session: brought back first, as after a restart.
		if _, rerr := a.ResumeSession(ctx, p.SessionID); rerr == nil {
			res, err = a.Rewind(ctx, p.SessionID, p.TurnID, p.Prompt)
		}
	}
	if errors.Is(err, agent.ErrNoTurn) {
		return nil, jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	}
	if err != nil {
		return nil, agentError(err)
	}
	if res.TurnID != "" {
		s.convs.setCurrent(p.SessionID)
		s.convs.started(p.SessionID, res.TurnID)
	}
	out := &rewindResult{Files: []string{}, Conflicts: []rewindIssue{}, NotRestored: []rewindIssue{}, Rewound: res.Rewound, TurnID: res.TurnID}
	for _, path := range res.Files {
		out.Files = append(out.Files, string(uri.File(path)))
	}
	for _, c := range res.Conflicts {
		out.Conflicts = append(out.Conflicts, rewindIssue{URI: string(uri.File(c.Path)), Reason: c.Reason})
	}
	for _, n := range res.NotRestored {
		out.NotRestored = append(out.NotRestored, rewindIssue{URI: string(uri.File(n.Path)), Reason: n.Reason})
	}
	return out, nil
}

// rewindSummary says what a rewind did, in one message.
func rewindSummary(r *rewindResult) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Agent: rewound %d turn(s); %d file(s) restored", len(r.Rewound), len(r.Files))
	for _, c := range r.Conflicts {
		fmt.Fprintf(&b, "\nconflict, left as it is: %s (%s)", uriPath(c.URI), c.Reason)
	}
	for _, n := range r.NotRestored {
		fmt.Fprintf(&b, "\nnot restored: %s (%s)", uriPath(n.URI), n.Reason)
	}
	return b.String()
}

func uriPath(u string) string { return docKey(u) }

// canRewind reports whether the current conversation has a turn to
// rewind (for the code action).
func (s *server) canRewind() bool {
	cur := s.convs.Current()
	if cur == "" {
		return false
	}
	a, err := s.theAgent()
	if err != nil {
		return false
	}
	cps, err := a.Checkpoints(cur)
	if err != nil {
		return false
	}
	for _, cp := range cps {
		if !cp.Rewound {
			return true
		}
	}
	return false
}
