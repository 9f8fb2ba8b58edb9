package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/lsp"
)

const serveUsage = `Usage: agent-ls [serve] [--stdio] [flags]

Runs the language server on stdin/stdout. Editors start this. Logs go to
stderr or --log-file, never to stdout; by default only warnings and errors
(editors show every stderr line as an error). initializationOptions from
the editor (model, approvalPolicy, sandboxMode, saveAgentEdits) override
the flags. Each conversation is kept as Markdown in
$XDG_STATE_HOME/agent-ls/conversations (default ~/.local/state).

Flags:
`

func runServe(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var s settings
	s.register(fs, "warn")
	saveEdits := fs.Bool("save-agent-edits", true, "after an agent edit to a buffer without unsaved changes, write the file too, so commands see it")
	fs.Bool("stdio", true, "talk LSP over stdin/stdout (the only transport; accepted because editors pass it)")
	fs.Usage = func() { fmt.Fprint(stderr, serveUsage); fs.PrintDefaults() }
	if code, done := s.parseFlags(fs, args, serveUsage, stderr); done {
		return code
	}
	log, closeLog, err := s.logger(stderr)
	if err != nil {
		return usageError(stderr, serveUsage, err)
	}
	if isTerminal(stdin) {
		fmt.Fprint(stderr, waitingNotice)
	}
	defer closeLog()

	// Every way out (a signal, the end of stdin, exit) goes through the
	// cleanup below: commands killed, placeholders released.
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt, syscall.SIGHUP)
	defer stop()
	defer stopCommands()

	var (
		mu       sync.Mutex
		managers []*agent.Manager
	)
	newAgent := func(cfg lsp.AgentConfig) (lsp.Agent, error) {
		client, err := s.modelClient()
		if err != nil {
			return nil, err
		}
		opts, err := s.agentOptions(client, cfg.Frontend, cfg.Files, log)
		if err != nil {
			return nil, err
		}
		opts.Cwd = cfg.Cwd
		removeStaleMarkers(cfg.Cwd, log)
		if cfg.Init.Model != "" {
			opts.ModelName = cfg.Init.Model
		}
		if cfg.Init.ApprovalPolicy != "" {
			opts.ApprovalPolicy = cfg.Init.ApprovalPolicy
		}
		if cfg.Init.SandboxMode != "" {
			opts.SandboxMode = cfg.Init.SandboxMode
		}
		mgr, err := agent.NewManager(opts)
		if err != nil {
			return nil, err
		}
		mu.Lock()
		managers = append(managers, mgr)
		mu.Unlock()
		return mgr, nil
	}
	notices := recoverChangeSets(log)
	code, err := lsp.Serve(ctx, stdio{stdin, stdout}, lsp.Options{
		Version:        version,
		Logger:         log,
		NewAgent:       newAgent,
		TranscriptDir:  transcriptDir(),
		SaveAgentEdits: saveEdits,
		Notices:        notices,
	})
	mu.Lock()
	for _, m := range managers {
		m.Close() // interrupt whatever still runs
	}
	mu.Unlock()
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
