package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/lsp"
	kept "github.com/agent-ls/agent-ls/internal/session"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// resumeSession brings session id back into mgr from its record, unless
// it is live there already, and returns its record as loaded.
func resumeSession(mgr *agent.Manager, st *kept.Store, id string) (*kept.Loaded, error) {
	if st == nil {
		return nil, errors.New("sessions are not kept here (no state directory)")
	}
	ld, err := st.Load(id)
	if errors.Is(err, kept.ErrNotFound) {
		return nil, fmt.Errorf("%w: %v", agent.ErrUnknownSession, err)
	}
	if err != nil {
		return nil, err
	}
	if _, err := mgr.Record(id); err == nil {
		return ld, nil // live already
	}
	if err := st.CheckFree(id); err != nil {
		return nil, fmt.Errorf("resume session %s: %w", id, err)
	}
	if _, err := mgr.Restore(ld.Record); err != nil {
		if _, live := mgr.Record(id); live == nil {
			return ld, nil // another request brought it back meanwhile
		}
		return nil, fmt.Errorf("resume session %s: %w", id, err)
	}
	return ld, nil
}

// keptSessions lists the kept sessions, those of cwd first, most recent
// first; none when sessions are not kept. Both protocols' ListSessions
// come from it.
func (a *editorAgent) keptSessions(cwd string) ([]agent.SessionSummary, error) {
	if a.root.sessions == nil {
		return nil, nil
	}
	return a.root.sessions.List(cwd)
}

// resume brings a kept session back (a live one stays as it is), with
// the settings of the files as they are.
func (a *editorAgent) resume(id string) (*agent.ResumedSession, error) {
	a.tell(a.fresh())
	ld, err := resumeSession(a.Manager, a.root.sessions, id)
	if err != nil {
		return nil, err
	}
	for _, p := range ld.Problems {
		a.log.Warn("session record: "+p, "session", id)
	}
	rs := &agent.ResumedSession{Info: ld.Record.Info, Items: make([]json.RawMessage, len(ld.Items)), Array: ld.ItemsArray}
	if rec, err := a.Manager.Record(id); err == nil {
		rs.Info = rec.Info
	}
	for i, it := range ld.Items {
		rs.Items[i] = it.JSON
	}
	return rs, nil
}

// ListSessions lists the kept sessions, the workspace's first
// (lsp.Agent).
func (a *editorAgent) ListSessions() ([]agent.SessionSummary, error) {
	return a.keptSessions(a.cwd)
}

// ResumeSession brings a kept session back (lsp.Agent).
func (a *editorAgent) ResumeSession(_ context.Context, id string) (*agent.ResumedSession, error) {
	return a.resume(id)
}

// ListMCPServers reports the MCP servers, starting them if no session
// has yet (lsp.Agent).
func (a *editorAgent) ListMCPServers() []lsp.MCPServer { return mcpStatuses(a.root.mcp) }

// LatestSession is the workspace's most recent kept session (lsp.Agent).
func (a *editorAgent) LatestSession() (string, error) {
	if a.root.sessions == nil || a.cwd == "" {
		return "", nil
	}
	s, err := a.root.sessions.Latest(a.cwd)
	if errors.Is(err, kept.ErrNotFound) {
		return "", nil
	}
	return s.SessionID, err
}

// sessionToResume finds the session exec --resume or --last names.
func sessionToResume(st *kept.Store, id string, last bool, cwd string) (string, error) {
	if st == nil {
		return "", errors.New("sessions are not kept here (no state directory)")
	}
	if !last {
		return id, nil
	}
	s, err := st.Latest(cwd)
	if err != nil {
		return "", fmt.Errorf("--last: %w", err)
	}
	return s.SessionID, nil
}

// plural is "1 turn", "2 turns".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// describeResumed tells the terminal which session goes on.
func describeResumed(w io.Writer, ld *kept.Loaded) {
	fmt.Fprintf(w, "agent-ls: resuming session %s (%s, %s)\n", ld.Record.Info.SessionID, plural(ld.Record.Turns, "turn"), textcut.VisibleLine(ld.Record.Info.Cwd))
	for _, p := range ld.Problems {
		fmt.Fprintf(w, "agent-ls: the session's record: %s\n", textcut.Visible(strings.TrimSpace(p)))
	}
}
