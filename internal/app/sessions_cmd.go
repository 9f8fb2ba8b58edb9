package app

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"text/tabwriter"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	kept "github.com/agent-ls/agent-ls/internal/session"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

const sessionsUsage = `Usage: agent-ls sessions [--all] [--prune DAYS] [--json]

Lists the kept sessions, those of the current directory's workspace first,
most recent first: their id (for exec --resume and agent/resumeSession),
when they were last updated, their turns, directory and first prompt.
Sessions without a turn (a client that opened one and left it) are
counted, not listed, unless --all is given; --json lists them all.
Sessions are kept in $XDG_STATE_HOME/agent-ls/sessions (default
~/.local/state), never in the workspace, and only ever appended to;
--prune DAYS deletes those not updated for DAYS days, with their
conversation transcripts.

Flags:
`

func runSessions(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	prune := fs.Float64("prune", 0, "delete the sessions not updated for this many `DAYS`")
	jsonOut := fs.Bool("json", false, "print the list as JSON (agent/listSessions' sessions, with cwd a path)")
	all := fs.Bool("all", false, "list the sessions without a turn too")
	if code, done := parseFlags(fs, args, sessionsUsage, stdout, stderr); done {
		return code
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
	empty := 0
	if !*all {
		list = slices.DeleteFunc(list, func(s agent.SessionSummary) bool {
			if s.Turns == 0 {
				empty++
			}
			return s.Turns == 0
		})
	}
	printSessions(stdout, list)
	if empty > 0 {
		fmt.Fprintf(stdout, "(and %d session(s) without a turn; --all lists them)\n", empty)
	}
	return 0
}

// printSessions prints list as a table.
func printSessions(stdout io.Writer, list []agent.SessionSummary) {
	if len(list) == 0 {
		return
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
}

// removeTranscript deletes a pruned session's conversation transcript.
func removeTranscript(id string) {
	if dir := transcriptDir(); dir != "" {
		os.Remove(filepath.Join(dir, id+".md"))
	}
}
