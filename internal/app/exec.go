package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

const execUsage = `Usage: agent-ls exec [flags] PROMPT

Runs one turn in the current directory. The answer streams to stdout, tool
activity to stderr. Control characters, escape sequences and bidi controls
in what the model, the repository or a server wrote show escaped (\x1b,
\r, \u202e), and a command to approve is quoted word by word; the answer
piped (stdout not a terminal) is as the model wrote it. Every session is
kept (agent-ls sessions lists them); --resume ID or --last goes on with
one, in its own directory. PROMPT "-" (or no PROMPT with stdin not a
terminal) reads the prompt from stdin; an empty prompt is refused.
Ctrl-C interrupts the turn. At its end the files it changed are listed
on stderr, each with the lines added and removed (+N -M); --diff prints
the diff itself on stdout after the answer.

Approvals: on a terminal agent-ls asks; otherwise it refuses what needs
approval. --yes (and --full-auto) answer for you, but only for actions that
stay inside the sandbox and the writable folders: a command that asks to run
outside the sandbox, a rerun without the sandbox after a denial, and a file
change outside the workspace (or to .git, .agents, .agent-ls) are refused,
and so is a call of an MCP server's tool that its server does not mark
read-only (unless the server's config says approval = "auto"); the model
is told why. Nothing runs unsandboxed unattended unless you
say --dangerously-bypass-sandbox.

--plan runs the turn in plan mode: commands run in the read-only sandbox,
nothing is changed (file changes, escalations and MCP tools not marked
read-only are refused, and the model is told why), and the model ends
with a plan: its checklist on stderr, the plan on stdout. Without --plan
the turn runs in the default mode, also in a session --resume brings
back from plan mode: agent-ls exec --resume ID PROMPT carries the plan out.

Exit status: 0 completed, 1 failed, 130 interrupted, 2 usage error.

Flags:
`

func runExec(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	o, code, done := parseExec(args, stdin, stdout, stderr)
	if done {
		return code
	}
	log, closeLog, err := o.settings.logger(stderr)
	if err != nil {
		return usageError(stderr, execUsage, err)
	}
	defer closeLog()
	for _, msg := range recoverChangeSets(log) {
		fmt.Fprintf(stderr, "agent-ls exec: %s\n", textcut.Visible(msg))
	}
	r, err := newRoot(o.settings, log)
	if err == nil {
		_, err = r.clientFor(agent.SessionInfo{})
	}
	if err != nil {
		execError(stderr, err)
		return 1
	}
	stderr, ring := execStderr(r, o, stderr)
	fe, nobodyAsked := execFrontend(&o, stdin, stdout, stderr)
	defer fe.usageLine() // deferred first: the last line

	mgr, err := r.newManager(frontendParts{frontend: fe, cwd: o.cwd, unattended: o.yes && !o.bypass, ring: ring, nobodyAsked: nobodyAsked})
	if err != nil {
		execError(stderr, err)
		return 2
	}
	// A new session whose turn failed before the model answered is
	// not kept: nothing in it is worth going on with.
	var unanswered string
	defer func() {
		if unanswered != "" && r.sessions != nil {
			if err := r.sessions.Remove(unanswered); err == nil {
				removeTranscript(unanswered)
			}
		}
	}()
	defer r.close()
	defer mgr.Close()
	info, err := execSession(mgr, r, o, stderr)
	if err == nil {
		err = execFolders(mgr, info, o, stderr)
	}
	if err != nil {
		execError(stderr, err)
		return 1
	}
	removeStaleMarkers(info.Cwd, log)
	if msg := agent.HomeWorkspaceReadOnly(info.Cwd, o.settings.SandboxMode, o.settings.AllowHomeWorkspace); msg != "" && !o.jsonOut {
		fmt.Fprintf(stderr, "agent-ls exec: %s\n", strings.TrimPrefix(msg, "agent-ls: "))
	}
	if r.sessions != nil {
		// The terminal is told when the record cannot be written, and
		// whether it was written again whole.
		r.sessions.Notify(func(msg string) {
			fmt.Fprintf(stderr, "%s\n", textcut.VisibleLine(msg))
		})
		defer r.sessions.Notify(nil)
	}
	defer func() {
		if r.sessions != nil && !o.jsonOut && unanswered == "" {
			sessionHint(stderr, info.SessionID, o.plan)
		}
	}()

	sig := make(chan os.Signal, 2)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sig)
	defer stopCommands()
	in := execInput(o.prompt, info.Cwd, stderr)
	in.Images = append(o.images, in.Images...)
	code = runExecTurn(mgr, info.SessionID, in, sig, stderr)
	if code == 1 && fe.usage == nil && o.resume == "" && !o.last {
		unanswered = info.SessionID
	}
	return code
}

// execStderr is exec's stderr for the turn: MCP servers report from
// their own goroutines, beside the turn's output, and both write through
// one lock. ring rings the terminal ([tui] notifications), or is nil.
func execStderr(r *root, o execOptions, stderr io.Writer) (locked io.Writer, ring func(bool)) {
	ringable := o.settings.TUI.Notifications && isTerminal(stderr)
	locked = &lockedWriter{w: stderr}
	if ringable {
		ring = terminalRing(locked, o.settings.TUI.NotificationMethod)
	}
	r.mcpNotices.Listen(func(msg string) {
		fmt.Fprintf(locked, "agent-ls exec: %s\n", textcut.Visible(strings.TrimPrefix(msg, "agent-ls: ")))
	})
	return locked, ring
}

// sessionHint is exec's line that says how to go on with the session.
func sessionHint(stderr io.Writer, id string, plan bool) {
	next := "continues it"
	if plan {
		next = "carries out the plan"
	}
	fmt.Fprintf(stderr, "agent-ls: session %s (agent-ls exec --resume %s PROMPT %s)\n", id, id, next)
}

// execFrontend is exec's terminal front end, answering questions as o
// says; nobodyAsked is true when no question reaches the user (--yes, no
// terminal).
func execFrontend(o *execOptions, stdin io.Reader, stdout, stderr io.Writer) (fe *termFrontend, nobodyAsked bool) {
	fe = newTermFrontend(stdout, stderr, o.jsonOut)
	fe.showDiff = o.diff
	nobodyAsked = true
	switch {
	case o.yes, o.bypass:
		fe.answer = func(context.Context, *agent.ApprovalRequest) (string, error) { return agent.AllowOnce, nil }
		fe.noAsk = "nobody is there to answer under --yes"
	case isTerminal(stdin):
		lines := readLines(stdin)
		fe.answer = terminalPrompt(lines, stderr)
		fe.ask = terminalForm(lines, stderr)
		fe.askUser = terminalQuestions(lines, stderr)
		nobodyAsked = false
	default:
		fe.noAsk = "stdin is not a terminal"
	}
	return fe, nobodyAsked
}

// execError reports err on the terminal. Errors quote the model, the
// repository and servers (a file name, a model's error text): their
// control characters are escaped, like everything exec shows.
func execError(stderr io.Writer, err error) {
	fmt.Fprintf(stderr, "agent-ls exec: %s\n", textcut.Visible(err.Error()))
}

// execSession is the session exec's turn runs in: a new one, or the one
// --resume or --last brings back.
func execSession(mgr *agent.Manager, r *root, o execOptions, stderr io.Writer) (agent.SessionInfo, error) {
	mode := agent.ModeDefault
	if o.plan {
		mode = agent.ModePlan
	}
	if o.resume == "" && !o.last {
		return mgr.NewSession(agent.SessionOptions{Mode: mode})
	}
	cwd := o.cwd
	if cwd == "" {
		cwd, _ = os.Getwd()
	}
	id, err := sessionToResume(r.sessions, o.resume, o.last, cwd)
	if err != nil {
		return agent.SessionInfo{}, fmt.Errorf("%w (agent-ls sessions lists the kept sessions)", err)
	}
	ld, err := resumeSession(mgr, r.sessions, id)
	if err != nil {
		return agent.SessionInfo{}, fmt.Errorf("%w (agent-ls sessions lists the kept sessions)", err)
	}
	describeResumed(stderr, ld)
	if err := mgr.SetMode(id, mode); err != nil {
		return agent.SessionInfo{}, err
	}
	rec, err := mgr.Record(id)
	return rec.Info, err
}

// execOptions are what exec's command line asks for.
type execOptions struct {
	settings Settings
	prompt   string
	// images are the data URLs of the -i files.
	images      []string
	cwd         string // absolute; "" for the current directory
	jsonOut     bool
	yes, bypass bool
	// plan: the turn runs in plan mode.
	plan bool
	// resume names the session to go on with; last: the most recent one
	// of the directory's workspace.
	resume string
	last   bool
	// addDirs are the --add-dir folders, absolute.
	addDirs []string
	// diff: print the turn's diff after the answer.
	diff bool
}

// parseExec reads exec's flags, the environment and the prompt. done is
// true when the caller must return code at once (help, or a usage error).
func parseExec(args []string, stdin io.Reader, stdout, stderr io.Writer) (o execOptions, code int, done bool) {
	fs, flags := newFlagSet("exec")
	jsonOut := fs.Bool("json", false, "print one JSON event per line on stdout (the agent/event objects)")
	cwd := fs.String("cd", "", "run in this `DIR` instead of the current one")
	yes := fs.Bool("yes", false, "allow, without asking, what the policy asks about and stays inside the sandbox and the writable folders; refuse the rest")
	fullAuto := fs.Bool("full-auto", false, "sandboxed and hands-off: --sandbox workspace-write --approval-policy on-request --yes")
	bypass := fs.Bool("dangerously-bypass-sandbox", false, "DANGEROUS: run every command without the sandbox and allow every action without asking; only for a disposable machine")
	resume := fs.String("resume", "", "go on with the kept session of this `ID` (agent-ls sessions lists them): its history, undo and \"always\" answers")
	last := fs.Bool("last", false, "go on with the most recent session of this directory's workspace")
	diff := fs.Bool("diff", false, "after the answer, print the diff of the files the turn changed on stdout (the changed files and their +N -M are always listed on stderr)")
	plan := fs.Bool("plan", false, "plan mode: investigate in the read-only sandbox, change nothing, and end with a plan")
	addDirs := addDirFlag(fs)
	var images imageFlags
	fs.Var(&images, "i", "attach the image `FILE` (PNG, JPEG, GIF, WebP) to the prompt; repeatable")
	res, code, done := parseSettings(fs, flags, args, execUsage, stdout, stderr)
	if done {
		return o, code, true
	}
	if *resume != "" && *last {
		return o, usageError(stderr, execUsage, errors.New("--resume and --last each name the session to go on with: give one")), true
	}
	if *fullAuto {
		*yes = true
		setUnlessFlagged(&flags.layer, "sandbox_mode", string(policy.WorkspaceWrite), "--full-auto")
		setUnlessFlagged(&flags.layer, "approval_policy", string(policy.OnRequest), "--full-auto")
	}
	o = execOptions{jsonOut: *jsonOut, yes: *yes, bypass: *bypass, resume: *resume, last: *last, plan: *plan, addDirs: *addDirs, diff: *diff}
	err := checkUnattended(&flags.layer, *yes, *bypass)
	if err == nil {
		o.prompt, err = execPrompt(fs.Args(), stdin)
	}
	if err == nil {
		o.images, err = readImages(images)
	}
	if err == nil && *cwd != "" {
		o.cwd, err = execDir(*cwd)
	}
	if err != nil {
		return o, usageError(stderr, execUsage, err), true
	}
	project := o.cwd
	if project == "" {
		project, _ = os.Getwd()
	}
	var probs []config.Problem
	o.settings, probs = res.resolve(project, nil)
	failed := false
	for _, p := range probs {
		fmt.Fprintf(stderr, "agent-ls exec: %s\n", textcut.Visible(p.String()))
		failed = failed || !p.Ignored
	}
	if failed {
		fmt.Fprintln(stderr, "agent-ls exec: fix the configuration (agent-ls config --check lists every problem)")
		return o, 2, true
	}
	if *yes && !*bypass && o.settings.SandboxMode == policy.DangerFullAccess {
		return o, usageError(stderr, execUsage, fmt.Errorf("%w (%s)", errUnattendedUnsandboxed, o.settings.Sources["sandbox_mode"])), true
	}
	if err != nil {
		return o, usageError(stderr, execUsage, err), true
	}
	return o, 0, false
}

// execDir checks --cd, which chooses where the session runs; it is made
// absolute here so that nothing later resolves it against another
// directory.
func execDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("--cd: %w", err)
	}
	if st, err := os.Stat(abs); err != nil || !st.IsDir() {
		return "", fmt.Errorf("--cd %s: not a directory", dir)
	}
	return abs, nil
}

// runExecTurn runs the turn and returns exec's exit status: 0 completed,
// 130 interrupted (Ctrl-C once interrupts the turn, twice leaves at
// once), 1 otherwise.
func runExecTurn(mgr *agent.Manager, sessionID string, in agent.TurnInput, sig <-chan os.Signal, stderr io.Writer) int {
	turn, err := mgr.StartTurn(sessionID, in)
	if err != nil {
		execError(stderr, err)
		return 1
	}
	select {
	case <-turn.Done():
	case <-sig:
		fmt.Fprintln(stderr, "\nagent-ls: interrupting the turn…")
		go func() {
			if err := mgr.Interrupt(sessionID, turn.ID()); err != nil && !errors.Is(err, agent.ErrNoTurn) {
				execError(stderr, err)
			}
		}()
		select {
		case <-turn.Done():
		case <-sig: // asked twice: leave now (the deferred cleanup still runs)
			return 130
		}
	}
	switch turn.Result().Status {
	case event.StatusCompleted:
		return 0
	case event.StatusInterrupted:
		return 130
	default:
		return 1
	}
}

// checkUnattended keeps --yes from ever meaning "without the sandbox":
// running unsandboxed and unattended takes --dangerously-bypass-sandbox,
// which sets the sandbox mode itself. The configured mode is checked
// once it is resolved (errUnattendedUnsandboxed).
func checkUnattended(flags *config.Layer, yes, bypass bool) error {
	mode, _ := flags.Tree["sandbox_mode"].(string)
	switch {
	case bypass && mode != "" && mode != string(policy.DangerFullAccess):
		return fmt.Errorf("--dangerously-bypass-sandbox runs without the sandbox; it cannot go with --sandbox %s", mode)
	case bypass:
		flags.Set("sandbox_mode", string(policy.DangerFullAccess), "--dangerously-bypass-sandbox")
	case yes && mode == string(policy.DangerFullAccess):
		return errUnattendedUnsandboxed
	}
	return nil
}

var errUnattendedUnsandboxed = errors.New("--yes and --full-auto allow only what stays inside the sandbox, and --sandbox danger-full-access has none; to run unattended without the sandbox, say --dangerously-bypass-sandbox")

// setUnlessFlagged sets key in the flags layer unless a flag did.
func setUnlessFlagged(flags *config.Layer, key, v, source string) {
	if _, ok := flags.Tree[key]; !ok {
		flags.Set(key, v, source)
	}
}

// execPrompt takes the prompt from the arguments, or from stdin for "-" or
// when there are none and stdin is not a terminal.
func execPrompt(args []string, stdin io.Reader) (string, error) {
	if len(args) > 0 && !(len(args) == 1 && args[0] == "-") {
		p := strings.Join(args, " ")
		if strings.TrimSpace(p) == "" {
			return "", errors.New("the prompt is empty")
		}
		return p, nil
	}
	if len(args) == 0 && isTerminal(stdin) {
		return "", errors.New("no prompt: give one as an argument (or '-' to read it from stdin)")
	}
	data, err := io.ReadAll(stdin)
	if err != nil {
		return "", fmt.Errorf("read prompt from stdin: %w", err)
	}
	p := strings.TrimSpace(string(data))
	if p == "" {
		return "", errors.New("the prompt is empty")
	}
	return p, nil
}

// lockedWriter serialises the writes of several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
