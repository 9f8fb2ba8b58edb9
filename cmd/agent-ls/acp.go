package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/acp"
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
session/list and session/resume.

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
	s, probs := res.resolve(cwd, nil)
	for _, m := range problemMessages(probs) {
		log.Warn(m.Text)
	}
	r, err := newRoot(s, log)
	if err != nil {
		log.Error("cannot start", "err", err)
		return 1
	}
	defer r.close()
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt, syscall.SIGHUP)
	defer stop()
	defer stopCommands()
	for _, n := range recoverChangeSets(log) {
		log.Warn(n)
	}

	var managers managerList
	newAgent := func(cfg acp.Config) (acp.Agent, error) {
		removeStaleMarkers(cwd, log)
		a := &editorAgent{root: r, res: res, cwd: cwd, log: log}
		a.configure(nil)
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
			r.mu.Lock()
			s := r.settings
			r.mu.Unlock()
			return model.KeyVariable(s.modelConfig())
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
	return 0
}

// acpAgent is the agent of an ACP connection: the editor agent's
// manager, settings and kept sessions, with the session types of
// internal/acp.
type acpAgent struct{ *editorAgent }

// ListSessions lists the kept sessions, those of cwd first.
func (a acpAgent) ListSessions(cwd string) ([]acp.SessionSummary, error) {
	if a.root.sessions == nil {
		return nil, nil
	}
	if cwd == "" {
		cwd = a.cwd
	}
	list, err := a.root.sessions.List(cwd)
	if err != nil {
		return nil, err
	}
	out := make([]acp.SessionSummary, 0, len(list))
	for _, s := range list {
		out = append(out, acp.SessionSummary{SessionID: s.SessionID, Cwd: s.Cwd, Title: s.Title, UpdatedAt: s.UpdatedAt})
	}
	return out, nil
}

// ResumeSession brings a kept session back.
func (a acpAgent) ResumeSession(ctx context.Context, id string) (*acp.ResumedSession, error) {
	rs, err := a.editorAgent.ResumeSession(ctx, id)
	if err != nil {
		return nil, err
	}
	return &acp.ResumedSession{Info: rs.Info, Items: rs.Items}, nil
}
