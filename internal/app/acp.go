package app

import (
	"errors"
	"flag"
	"fmt"
	"io"
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
	fs := flag.NewFlagSet("acp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var flags cmdFlags
	flags.register(fs)
	fs.Usage = func() { fmt.Fprint(stderr, acpUsage); fs.PrintDefaults() }
	res, code, done := parseSettings(fs, &flags, args, acpUsage, stderr)
	if done {
		return code
	}
	if fs.NArg() > 0 {
		return usageError(stderr, acpUsage, errors.New("acp takes no arguments"))
	}
	ls := res.logSettings()
	log, closeLog, err := ls.logger(stderr)
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
	// The root (tool registry, model clients, kept sessions, MCP
	// servers) is built and the change sets a crash interrupted are
	// recovered while the client's initialize comes in and is answered;
	// the agent, built after initialize, waits for both.
	var r *root
	var rootErr error
	rootReady := make(chan struct{})
	go func() {
		if r, rootErr = newRoot(s, log); rootErr != nil {
			log.Error("cannot start", "err", rootErr)
			close(rootReady)
			return
		}
		for _, n := range recoverChangeSets(log) {
			log.Warn(n)
		}
		close(rootReady)
	}()
	defer func() {
		<-rootReady
		if r != nil {
			r.close()
		}
	}()
	ctx, stop := stopContext(syscall.SIGTERM, os.Interrupt, syscall.SIGHUP)
	defer stop()
	defer stopCommands()

	var managers managerList
	newAgent := func(cfg acp.Config) (acp.Agent, error) {
		<-rootReady
		if rootErr != nil {
			return nil, rootErr
		}
		removeStaleMarkers(cwd, log)
		a := &editorAgent{root: r, res: res, cwd: cwd, log: log, show: func(msgs ...lsp.Message) {
			for _, m := range msgs {
				cfg.Tell(m.Text)
			}
		}}
		// The root was built with the settings resolved at start: they
		// hold until the config files change (a.fresh).
		a.settled(stamp, told)
		if r.sessions != nil {
			r.sessions.Notify(func(msg string) { cfg.Tell(msg) })
		}
		// A configured MCP server that fails to start is told once, in
		// the sessions open.
		r.mcpNotices.Listen(func(msg string) {
			log.Warn(msg)
			cfg.Tell(msg)
		})
		mgr, err := r.newManager(frontendParts{frontend: cfg.Frontend, files: cfg.Files, cwd: cwd})
		if err != nil {
			return nil, err
		}
		a.Manager = mgr
		managers.add(mgr)
		return acpAgent{a}, nil
	}
	err = acp.Serve(ctx, stdin, stdout, acp.Options{
		Version:  version,
		Logger:   log,
		NewAgent: newAgent,
		KeyVariable: func() string {
			// The settings as the root keeps them (reloaded for each
			// agent), or as read at start while it is being built.
			settings := s
			select {
			case <-rootReady:
				if r != nil {
					r.mu.Lock()
					settings = r.settings
					r.mu.Unlock()
				}
			default:
			}
			return model.KeyVariable(settings.modelConfig())
		},
		Model:           s.Model,
		ReasoningEffort: s.ModelReasoningEffort,
		Compact:         true,
	})
	managers.closeAll()
	if err != nil {
		log.Error("acp server stopped", "err", err)
		return 1
	}
	<-rootReady
	if rootErr != nil {
		return 1
	}
	return 0
}
