package app

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/acp"
	"github.com/agent-ls/agent-ls/internal/lsp"
	"github.com/agent-ls/agent-ls/internal/model"
)

const acpUsage = `Usage: agent-ls acp [flags]

Serves the agent over the Agent Client Protocol (ACP v1) on stdin/stdout,
for editors that host external agents: Zed, the JetBrains IDEs,
codecompanion and other ACP clients start this. Logs go to stderr or
--log-file. Settings come from the same config file, environment and
flags as serve (agent-ls config shows them); the client picks each
session's mode (read-only, auto, full-access), model and reasoning
effort. Sessions are kept as serve keeps them, for session/load,
session/list and session/resume. The MCP servers the client names for a
session (stdio or streamable HTTP) start for that session alone, beside
those of the config file, and stop with it.

Flags:
`

func runACP(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, flags := newFlagSet("acp")
	res, code, done := parseSettings(fs, flags, args, acpUsage, stdout, stderr)
	if done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, acpUsage, errors.New("acp takes no arguments"))
	}
	log, closeLog, err := res.logger(stderr)
	if err != nil {
		return usageError(stderr, acpUsage, err)
	}
	defer closeLog()
	// ACP clients start the agent in the project; each session names its
	// own directory.
	cwd, _ := os.Getwd()
	stamp := filesStamp(res.userFile, cwd)
	s, probs := res.resolve(cwd, nil)
	told := problemMessages(probs)
	for _, m := range told {
		log.Warn(m.Text)
	}
	// The root is built while the client's initialize comes in and is
	// answered; the agent, built after initialize, waits for it.
	sr := startRoot(s, log)
	defer sr.close()
	ctx, stop := stopContext(syscall.SIGTERM, os.Interrupt, syscall.SIGHUP)
	defer stop()
	defer stopCommands()

	newAgent := func(cfg acp.Config) (acp.Agent, error) {
		r, err := sr.wait()
		if err != nil {
			return nil, err
		}
		tell := func(msgs ...lsp.Message) {
			for _, m := range msgs {
				cfg.Tell(m.Text)
			}
		}
		// The root was built with the settings resolved at start: they
		// hold until the config files change (a.fresh).
		settle := func(a *editorAgent) { a.settled(stamp, told) }
		a, err := r.newEditorAgent(res, frontendParts{frontend: cfg.Frontend, files: cfg.Files, cwd: cwd}, tell, settle)
		if err != nil {
			return nil, err
		}
		// The connection's sessions are told when the configured
		// servers' prompts change, as when their own servers' do.
		r.promptsChanged.add(cfg.PromptsChanged)
		return acpAgent{a, cfg.PromptsChanged}, nil
	}
	err = acp.Serve(ctx, stdin, stdout, acp.Options{
		Version:  version,
		Logger:   log,
		NewAgent: newAgent,
		// The settings as the root keeps them (reloaded for each agent),
		// or as read at start while it is being built.
		KeyVariable: func() string {
			s := sr.settings()
			return model.KeyVariable(s.modelConfig())
		},
		Model:           s.Model,
		ReasoningEffort: s.ModelReasoningEffort,
		Compact:         true,
	})
	r, rootErr := sr.wait()
	if r != nil {
		r.closeManagers()
	}
	if err != nil {
		log.Error("acp server stopped", "err", err)
		return 1
	}
	if rootErr != nil {
		return 1
	}
	return 0
}

// startingRoot is a root being built in the background, and the change
// sets a crash interrupted being recovered after it: acp builds it while
// the client's initialize is answered.
type startingRoot struct {
	ready   chan struct{}
	r       *root
	err     error
	initial Settings // what it is built with
}

func startRoot(s Settings, log *slog.Logger) *startingRoot {
	sr := &startingRoot{ready: make(chan struct{}), initial: s}
	go func() {
		defer close(sr.ready)
		if sr.r, sr.err = newRoot(s, log); sr.err != nil {
			log.Error("cannot start", "err", sr.err)
			return
		}
		for _, n := range recoverChangeSets(log) {
			log.Warn(n)
		}
	}()
	return sr
}

// wait waits until the root is built (or could not be).
func (sr *startingRoot) wait() (*root, error) {
	<-sr.ready
	return sr.r, sr.err
}

// settings are the settings in force: the root's once it is built,
// before that the ones it is being built with.
func (sr *startingRoot) settings() Settings {
	select {
	case <-sr.ready:
		if sr.r != nil {
			return sr.r.currentSettings()
		}
	default:
	}
	return sr.initial
}

// close closes the root once it is built.
func (sr *startingRoot) close() {
	if r, _ := sr.wait(); r != nil {
		r.close()
	}
}
