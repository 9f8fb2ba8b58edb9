package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/acp"
	"github.com/agent-ls/agent-ls/internal/lsp"
	"github.com/agent-ls/agent-ls/internal/mcp"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/tools"
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

// Forget drops a closed session from the manager and releases its
// record, which another agent-ls may then resume.
func (a acpAgent) Forget(id string) error {
	if err := a.Manager.Forget(id); err != nil {
		return err
	}
	if a.root.sessions != nil {
		a.root.sessions.Release(id)
	}
	return nil
}

// ResumeSession brings a kept session back.
func (a acpAgent) ResumeSession(ctx context.Context, id string) (*acp.ResumedSession, error) {
	rs, err := a.editorAgent.ResumeSession(ctx, id)
	if err != nil {
		return nil, err
	}
	return &acp.ResumedSession{Info: rs.Info, Items: rs.Items}, nil
}

// MCPServers starts the MCP servers a client names for one session, as a
// set of their own over a registry of their own: their tools are that
// session's alone, beside those of the configured servers. They get the
// same treatment as configured servers (a stdio server only the core
// environment and the env the client gave; calls approved per tool),
// never approval = "auto". A server named like a configured one, or like
// another of the list, is left out.
func (a acpAgent) MCPServers(cwd string, servers []acp.MCPServer, failed func(string, error)) acp.SessionServers {
	a.root.mu.Lock()
	configured := map[string]bool{}
	for name := range a.root.settings.MCPServers {
		configured[mcp.ToolName(name, "")] = true
	}
	a.root.mu.Unlock()
	seen := map[string]bool{}
	var cfgs []mcp.ServerConfig
	for _, s := range servers {
		c := mcp.ServerConfig{Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, URL: s.URL, HTTPHeaders: s.Headers}
		if c.Stdio() {
			c.Cwd = cwd
		}
		key := mcp.ToolName(s.Name, "")
		switch err := c.Validate(); {
		case err != nil:
			failed(s.Name, errors.Unwrap(err))
		case configured[key]:
			failed(s.Name, errors.New("the configuration has an MCP server of that name ([mcp_servers]), whose tools are offered instead"))
		case seen[key]:
			failed(s.Name, errors.New("another server of the session has that name"))
		default:
			seen[key] = true
			cfgs = append(cfgs, c)
		}
	}
	if len(cfgs) == 0 {
		return nil
	}
	reg, err := tools.NewRegistry()
	if err == nil {
		var set *mcp.Set
		if set, err = mcp.NewSet(cfgs, mcp.Options{Registry: reg, Logger: a.log, ClientVersion: version, Failed: failed}); err == nil {
			return &sessionMCP{Set: set, reg: reg}
		}
	}
	for _, c := range cfgs {
		failed(c.Name, err)
	}
	return nil
}

// sessionMCP are the MCP servers of one ACP session and the registry
// their tools go to.
type sessionMCP struct {
	*mcp.Set
	reg *tools.Registry
}

// Snapshot returns the servers' tools as they are now.
func (s *sessionMCP) Snapshot() *tools.Snapshot { return s.reg.Snapshot() }
