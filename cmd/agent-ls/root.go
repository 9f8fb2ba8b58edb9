package main

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/sandbox"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// root is the composition root: it turns the settings into what the agent
// runs with (the model clients, the tool registry) and builds agent
// managers from them. serve and exec build theirs here; demo runs serve.
type root struct {
	settings Settings
	log      *slog.Logger
	registry *tools.Registry

	clientOnce sync.Once
	client     model.Client
	clientErr  error
}

func newRoot(s Settings, log *slog.Logger) (*root, error) {
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		return nil, err
	}
	return &root{settings: s, log: log, registry: reg}, nil
}

// clientFor picks the model client of a session. Every session talks to
// the one server the settings name; a provider setting would choose
// among clients here, by the session's model.
func (r *root) clientFor(agent.SessionInfo) (model.Client, error) {
	r.clientOnce.Do(func() { r.client, r.clientErr = model.New(r.settings.modelConfig()) })
	return r.client, r.clientErr
}

// frontendParts are what the frontend brings to a manager.
type frontendParts struct {
	frontend agent.Frontend
	files    agent.FileReader // nil: the disk
	cwd      string           // "": the process's working directory
	// unattended: nobody answers approvals (exec --yes).
	unattended bool
}

// newManager builds an agent manager for a frontend with settings s (the
// root's, or those of one editor's connection). A model server the
// settings cannot describe is an error now, not at the first session.
func (r *root) newManager(s Settings, fp frontendParts) (*agent.Manager, error) {
	if _, err := r.clientFor(agent.SessionInfo{}); err != nil {
		return nil, err
	}
	return agent.NewManager(agent.Options{
		ClientFor:       r.clientFor,
		Frontend:        fp.frontend,
		Tools:           r.registry,
		Files:           fp.files,
		Cwd:             fp.cwd,
		Unattended:      fp.unattended,
		ModelName:       s.Model,
		ApprovalPolicy:  s.ApprovalPolicy,
		SandboxMode:     s.SandboxMode,
		ReasoningEffort: s.ReasoningEffort,
		MaxRequests:     s.MaxRequests,
		NetworkAccess:   s.Network,
		WritableRoots:   s.WritableRoots,
		Logger:          r.log,
		SandboxSummary:  func() string { return sandbox.Probe().Summary() },
		HelperPath:      sandboxHelper(),
		// Where no sandbox confines commands, every one needs approval.
		SandboxUnavailable: func() string { return sandbox.Probe().Unavailable() },
	})
}

// removeStaleMarkers deletes the placeholders a crashed agent-ls may have
// left over missing protected paths (.git, .agents, .agent-ls) in the
// workspace; they would otherwise stop `git init` there.
func removeStaleMarkers(cwd string, log *slog.Logger) {
	if cwd == "" {
		return
	}
	if err := sandbox.RemovePlaceholders(sandbox.Policy{Cwd: cwd}); err != nil {
		log.Warn("could not remove stale sandbox placeholders", "cwd", cwd, "err", err)
	}
}

// stopCommands ends the commands still running and everything they
// started, and removes the placeholders they relied on; serve and exec
// call it on every way out.
func stopCommands() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sandbox.Shutdown(ctx)
}

// sandboxHelper is the small agent-ls-sandbox binary next to this one, if
// it was installed: it starts in about a millisecond less than agent-ls
// itself, which every sandboxed command pays. Empty means agent-ls runs
// its own `sandbox` subcommand.
func sandboxHelper() string {
	self, err := os.Executable()
	if err != nil {
		return ""
	}
	helper := filepath.Join(filepath.Dir(self), "agent-ls-sandbox")
	if st, err := os.Stat(helper); err != nil || !st.Mode().IsRegular() || st.Mode()&0o111 == 0 {
		return ""
	}
	return helper
}
