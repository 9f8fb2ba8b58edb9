package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

const rewindUsage = `Usage: agent-ls rewind [--session ID] [TURN]

Takes a kept session back to just before one of its turns: that turn and
every later one leave the conversation the model sees (the record keeps
them, marked rewound), and the files they changed, through patches or
through commands, go back to how they were, keeping your own later edits
(a file where your edit overlaps the agent's change is left as it is and
listed as a conflict). TURN is the turn's number in the session (1 is the
first) or its id; without it, the last turn. The session is the most
recent one of this directory's workspace unless --session names one
(agent-ls sessions lists them). Then agent-ls exec --resume ID PROMPT goes
on from there. docs/rewind.md says what checkpoints keep.

Flags:
`

func runRewind(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, flags := newFlagSet("rewind")
	session := fs.String("session", "", "the kept session's `ID` (default: the most recent of this workspace)")
	res, code, done := parseSettings(fs, flags, args, rewindUsage, stdout, stderr)
	if done {
		return code
	}
	if fs.NArg() > 1 {
		return usageError(stderr, rewindUsage, errors.New("rewind takes at most one TURN"))
	}
	wd, _ := os.Getwd()
	settings, probs := res.resolve(wd, nil)
	for _, p := range probs {
		fmt.Fprintf(stderr, "agent-ls rewind: %s\n", textcut.Visible(p.String()))
		if !p.Ignored {
			return 2
		}
	}
	log, closeLog, err := settings.logger(stderr)
	if err != nil {
		return usageError(stderr, rewindUsage, err)
	}
	defer closeLog()
	for _, msg := range recoverChangeSets(log) {
		fmt.Fprintf(stderr, "agent-ls rewind: %s\n", textcut.Visible(msg))
	}
	r, err := newRoot(settings, log)
	if err != nil {
		execError(stderr, err)
		return 1
	}
	defer r.close()
	o := execOptions{}
	fe, _ := execFrontend(&o, stdin, stdout, stderr)
	mgr, err := r.newManager(frontendParts{frontend: fe, cwd: wd})
	if err != nil {
		execError(stderr, err)
		return 2
	}
	defer mgr.Close()
	id, err := sessionToResume(r.sessions, *session, *session == "", wd)
	if err == nil {
		_, err = resumeSession(mgr, r.sessions, id)
	}
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls rewind: %s\n", textcut.Visible(err.Error()))
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	out, err := mgr.Rewind(ctx, id, fs.Arg(0), "")
	if err != nil {
		fmt.Fprintf(stderr, "agent-ls rewind: %s\n", textcut.Visible(err.Error()))
		return 1
	}
	printRewind(stdout, id, out)
	if len(out.Conflicts) > 0 {
		return 3
	}
	return 0
}

// printRewind tells what a rewind did, paths relative to the directory.
func printRewind(w io.Writer, id string, res agent.RewindResult) {
	wd, _ := os.Getwd()
	rel := func(p string) string {
		if r, err := filepath.Rel(wd, p); err == nil && filepath.IsLocal(r) {
			return r
		}
		return p
	}
	fmt.Fprintf(w, "rewound %d turn(s) of session %s: %s\n", len(res.Rewound), id, textcut.VisibleLine(fmt.Sprint(res.Rewound)))
	for _, p := range res.Files {
		fmt.Fprintf(w, "restored     %s\n", textcut.VisibleLine(rel(p)))
	}
	for _, c := range res.Conflicts {
		fmt.Fprintf(w, "conflict     %s: %s (left as it is)\n", textcut.VisibleLine(rel(c.Path)), textcut.VisibleLine(c.Reason))
	}
	for _, n := range res.NotRestored {
		fmt.Fprintf(w, "not restored %s: %s\n", textcut.VisibleLine(rel(n.Path)), textcut.VisibleLine(n.Reason))
	}
}
