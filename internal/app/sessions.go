package app

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/lsp"
	kept "github.com/agent-ls/agent-ls/internal/session"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

const sessionsUsage = `Usage: agent-ls sessions [--prune DAYS] [--json]

Lists the kept sessions, those of the current directory's workspace first,
most recent first: their id (for exec --resume and agent/resumeSession),
when they were last updated, their turns, directory and first prompt.
Sessions are kept in $XDG_STATE_HOME/agent-ls/sessions (default
~/.local/state), never in the workspace, and only ever appended to;
--prune DAYS deletes those not updated for DAYS days, with their
conversation transcripts.

Flags:
`

func runSessions(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(stderr)
	prune := fs.Float64("prune", 0, "delete the sessions not updated for this many `DAYS`")
	jsonOut := fs.Bool("json", false, "print the list as JSON (agent/listSessions' sessions, with cwd a path)")
	fs.Usage = func() { fmt.Fprint(stderr, sessionsUsage); fs.PrintDefaults() }
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return 0
		}
		return 2
	}
	if fs.NArg() > 0 || *prune < 0 {
		return usageError(stderr, sessionsUsage, errors.New("sessions takes no arguments, and --prune a number of days"))
	}
	dir, err := kept.DefaultDir()
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls sessions: %v\n", err)
		return 1
	}
	st := kept.New(dir, slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if *prune > 0 {
		gone, err := st.Prune(time.Duration(*prune * float64(24*time.Hour)))
		for _, id := range gone {
			removeTranscript(id)
		}
		fmt.Fprintf(stdout, "deleted %d session(s) not updated for %g days\n", len(gone), *prune)
		if err != nil {
			fmt.Fprintf(stderr, "agent-ls sessions: %v\n", err)
			return 1
		}
		return 0
	}
	wd, _ := os.Getwd()
	list, err := st.List(wd)
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls sessions: %v\n", err)
		return 1
	}
	if *jsonOut {
		for i := range list {
			list[i].CreatedAt, list[i].UpdatedAt = list[i].CreatedAt.UTC(), list[i].UpdatedAt.UTC()
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(list); err != nil {
			return 1
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Fprintf(stdout, "no sessions kept yet (%s)\n", dir)
		return 0
	}
	tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tUPDATED\tTURNS\tDIRECTORY\tTITLE")
	for _, s := range list {
		// The title is the model's or a prompt's words and the directory
		// the repository's name: escaped, tabs too, so neither can act on
		// the terminal or shift the columns.
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", s.SessionID, s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.Turns, textcut.VisibleLine(s.Cwd), textcut.VisibleLine(s.Title))
	}
	tw.Flush()
	return 0
}

// removeTranscript deletes a pruned session's conversation transcript.
func removeTranscript(id string) {
	if dir := transcriptDir(); dir != "" {
		os.Remove(filepath.Join(dir, id+".md"))
	}
}

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

// ListSessions lists the kept sessions, the workspace's first
// (lsp.Agent).
func (a *editorAgent) ListSessions() ([]lsp.SessionSummary, error) {
	if a.root.sessions == nil {
		return []lsp.SessionSummary{}, nil
	}
	list, err := a.root.sessions.List(a.cwd)
	if err != nil {
		return nil, err
	}
	out := make([]lsp.SessionSummary, 0, len(list))
	for _, s := range list {
		out = append(out, lsp.SessionSummary{SessionID: s.SessionID, Cwd: s.Cwd, Title: s.Title, CreatedAt: s.CreatedAt, UpdatedAt: s.UpdatedAt, Turns: s.Turns})
	}
	return out, nil
}

// ResumeSession brings a kept session back (lsp.Agent).
func (a *editorAgent) ResumeSession(_ context.Context, id string) (*lsp.ResumedSession, error) {
	a.tell(a.fresh())
	ld, err := resumeSession(a.Manager, a.root.sessions, id)
	if err != nil {
		return nil, err
	}
	for _, p := range ld.Problems {
		a.log.Warn("session record: "+p, "session", id)
	}
	rs := &lsp.ResumedSession{Info: ld.Record.Info, Items: make([]json.RawMessage, len(ld.Items))}
	if rec, err := a.Manager.Record(id); err == nil {
		rs.Info = rec.Info
	}
	for i, it := range ld.Items {
		rs.Items[i] = it.JSON
	}
	return rs, nil
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

// describeResumed tells the terminal which session goes on.
func describeResumed(w io.Writer, ld *kept.Loaded) {
	fmt.Fprintf(w, "agent-ls: resuming session %s (%d turns, %s)\n", ld.Record.Info.SessionID, ld.Record.Turns, textcut.VisibleLine(ld.Record.Info.Cwd))
	for _, p := range ld.Problems {
		fmt.Fprintf(w, "agent-ls: the session's record: %s\n", textcut.Visible(strings.TrimSpace(p)))
	}
}
