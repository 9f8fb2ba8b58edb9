package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/lsp"
)

const serveUsage = `Usage: agent-ls [serve] [--stdio] [flags]

Runs the language server on stdin/stdout. Editors start this. Logs go to
stderr or --log-file, never to stdout; by default only warnings and errors
(editors show every stderr line as an error). Settings come from the config
file (agent-ls config shows them), the environment, the editor's
initializationOptions and workspace/didChangeConfiguration (model,
modelProvider, modelReasoningEffort, approvalPolicy, sandboxMode,
profile), and the flags, which override them all. Each session is kept in
$XDG_STATE_HOME/agent-ls/sessions (default ~/.local/state), to be listed and
resumed (agent/listSessions, agent/resumeSession, agent-ls sessions), and
its conversation as Markdown in $XDG_STATE_HOME/agent-ls/conversations.

Flags:
`

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, flags := newFlagSet("serve")
	saveEdits := fs.Bool("save-agent-edits", true, "after an agent edit to a buffer without unsaved changes, write the file too, so commands see it")
	fs.Bool("stdio", true, "talk LSP over stdin/stdout (the only transport; accepted because editors pass it)")
	res, code, done := parseSettings(fs, flags, args, serveUsage, stdout, stderr)
	if done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, serveUsage, fmt.Errorf("serve takes no arguments, got %q", fs.Arg(0)))
	}
	log, closeLog, err := res.logger(stderr)
	if err != nil {
		return usageError(stderr, serveUsage, err)
	}
	if isTerminal(stdin) {
		fmt.Fprint(stderr, waitingNotice)
	}
	defer closeLog()
	// The settings are resolved again at initialize, for the editor's
	// workspace and settings.
	s, _ := res.resolve("", nil)
	r, err := newRoot(s, log)
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	defer r.close()

	// Every way out (a signal, the end of stdin, exit) goes through the
	// cleanup below: commands killed, placeholders released.
	ctx, stop := stopContext(syscall.SIGTERM, os.Interrupt, syscall.SIGHUP)
	defer stop()
	defer stopCommands()

	newAgent := func(cfg lsp.AgentConfig) (lsp.Agent, error) {
		fp := frontendParts{frontend: cfg.Frontend, reviewer: cfg.Reviewer, files: cfg.Files, cwd: cfg.Cwd, folders: cfg.Folders}
		a, err := r.newEditorAgent(res, fp, cfg.Show, func(a *editorAgent) { cfg.Show(a.configure(cfg.Settings)...) })
		if err != nil {
			return nil, err
		}
		return a, nil
	}
	notices := recoverChangeSets(log)
	code, err = lsp.Serve(ctx, stdio{stdin, stdout}, lsp.Options{
		Version:        version,
		Logger:         log,
		NewAgent:       newAgent,
		TranscriptDir:  transcriptDir(),
		SaveAgentEdits: saveEdits,
		Notices:        notices,
	})
	r.closeManagers() // interrupt whatever still runs
	if err != nil {
		log.Error("server stopped", "err", err)
	}
	return code
}

// transcriptDir is where conversations are kept: the XDG state
// directory, outside any workspace. "" when there is no home to put it in.
func transcriptDir() string {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "agent-ls", "conversations")
}

// stdio joins stdin and stdout into the server's connection.
type stdio struct {
	io.Reader
	io.Writer
}

func (s stdio) Close() error {
	var errs []error
	if c, ok := s.Reader.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	if c, ok := s.Writer.(io.Closer); ok {
		errs = append(errs, c.Close())
	}
	return errors.Join(errs...)
}
