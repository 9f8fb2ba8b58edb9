package app

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/config"
	"github.com/agent-ls/agent-ls/internal/hooks"
	"github.com/agent-ls/agent-ls/internal/mcp"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/sandbox"
	kept "github.com/agent-ls/agent-ls/internal/session"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// root is the composition root: it turns the settings into what the agent
// runs with (the model clients, the tool registry) and builds agent
// managers from them. serve, acp and exec build theirs here; demo runs
// serve.
type root struct {
	log      *slog.Logger
	registry *tools.Registry
	// sessions keeps every session's record; nil when there is no state
	// directory to keep them in.
	sessions *kept.Store
	// mcp are the MCP servers of the config (nil: none), started when
	// the first session starts; their tools go into registry. Changes of
	// mcp_servers apply at the next start of agent-ls.
	mcp        *mcp.Set
	mcpNotices mcp.Notices
	// promptsChanged are told when the prompts of mcp change.
	promptsChanged promptWatchers
	// mcpRoots are the folders mcp's servers are offered as roots.
	mcpRoots mcpRoots

	mu       sync.Mutex
	settings Settings
	hooks    *hooks.Runner // the settings' [[hooks]]
	// clients are the model clients of the current settings, by
	// provider id; new settings start afresh (sessions keep theirs).
	clients map[string]model.Client
	// release closes the session records of a manager; its keys are the
	// managers built and not closed through closeManager.
	release map[*agent.Manager]func()
}

func newRoot(s Settings, log *slog.Logger) (*root, error) {
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		return nil, err
	}
	r := &root{log: log, registry: reg, release: map[*agent.Manager]func(){}}
	if err := r.update(s); err != nil {
		return nil, err
	}
	if r.mcp, err = newMCPSet(s, reg, &r.mcpNotices, log, r.promptsChanged.changed); err != nil {
		return nil, err
	}
	r.mcpRoots.set = r.mcp
	if dir, err := kept.DefaultDir(); err != nil {
		log.Warn("sessions are not kept", "err", err)
	} else {
		r.sessions = kept.New(dir, log)
	}
	return r, nil
}

// closeManager interrupts a manager's turns and closes its sessions'
// records, which another manager may then bring back.
func (r *root) closeManager(mgr *agent.Manager) {
	mgr.Close()
	r.mu.Lock()
	release := r.release[mgr]
	delete(r.release, mgr)
	r.mu.Unlock()
	if release != nil {
		release()
	}
}

// closeManagers interrupts the turns of every manager the root built
// and has not closed: the way out of serve and acp.
func (r *root) closeManagers() {
	r.mu.Lock()
	mgrs := make([]*agent.Manager, 0, len(r.release))
	for mgr := range r.release {
		mgrs = append(mgrs, mgr)
	}
	r.mu.Unlock()
	for _, mgr := range mgrs {
		mgr.Close()
	}
}

// close stops the MCP servers and closes the session records.
func (r *root) close() {
	r.mcp.Close()
	if r.sessions != nil {
		if err := r.sessions.Close(); err != nil {
			r.log.Warn("closing the session records", "err", err)
		}
	}
}

// update puts new settings in force for the sessions to come. Hooks that
// cannot run are an error, and then nothing changes.
func (r *root) update(s Settings) error {
	runner, err := s.hookRunner()
	if err != nil {
		return fmt.Errorf("hooks: %w", err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settings, r.clients, r.hooks = s, map[string]model.Client{}, runner
	return nil
}

// currentSettings are the settings in force.
func (r *root) currentSettings() Settings {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.settings
}

// BeforeTool runs the before_tool_use hooks in force (agent.ToolHooks):
// a change of the config file reaches the next call.
func (r *root) BeforeTool(ctx context.Context, use agent.ToolUse) (string, error) {
	r.mu.Lock()
	h := r.hooks
	r.mu.Unlock()
	return h.BeforeTool(ctx, use)
}

// AfterTool runs the after_tool_use hooks in force.
func (r *root) AfterTool(ctx context.Context, use agent.ToolUse, out agent.ToolOutcome) (string, error) {
	r.mu.Lock()
	h := r.hooks
	r.mu.Unlock()
	return h.AfterTool(ctx, use, out)
}

// clientFor picks the model client of a session: the one of its
// provider, made once per provider and settings.
func (r *root) clientFor(info agent.SessionInfo) (model.Client, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	id := cmp.Or(info.Provider, r.settings.ModelProvider)
	if c, ok := r.clients[id]; ok {
		return c, nil
	}
	if _, ok := r.settings.ModelProviders[id]; !ok {
		return nil, fmt.Errorf("model_provider %q: no such provider in the configuration (%s)", id, r.settings.Sources["model_provider"])
	}
	c, err := model.New(r.settings.modelConfigFor(id))
	if err != nil {
		return nil, fmt.Errorf("model provider %q: %w", id, err)
	}
	r.clients[id] = c
	return c, nil
}

// frontendParts are what the frontend brings to a manager.
type frontendParts struct {
	frontend agent.Frontend
	// reviewer: see agent.Options.Reviewer; nil applies changes as
	// proposed.
	reviewer agent.Reviewer
	files    agent.FileReader // nil: the disk
	cwd      string           // "": the process's working directory
	// folders are the editor's workspace folders (the first is cwd):
	// every session's workspace holds them (agent.Defaults.Folders).
	folders []string
	// unattended: nobody answers approvals (exec --yes).
	unattended bool
	// ring, when set, rings exec's terminal when a turn ends or waits on
	// the user ([tui] notifications).
	ring func(waiting bool)
	// nobodyAsked: the frontend answers every question itself (exec
	// with --yes or without a terminal), so none is notified of.
	nobodyAsked bool
	// beforeQueued reads the config files again before a waiting prompt
	// starts on its own (agent.Options.BeforeQueued); nil: nothing.
	beforeQueued func()
}

// newManager builds an agent manager for a frontend with the root's
// settings. A model server the settings cannot describe is an error now,
// not at the first session.
func (r *root) newManager(fp frontendParts) (*agent.Manager, error) {
	if _, err := r.clientFor(agent.SessionInfo{}); err != nil {
		return nil, err
	}
	s := r.currentSettings()
	opts := agent.Options{
		Defaults:             s.agentDefaults(),
		ClientFor:            r.clientFor,
		Frontend:             fp.frontend,
		Reviewer:             fp.reviewer,
		Tools:                r.registry,
		Files:                fp.files,
		Cwd:                  fp.cwd,
		Unattended:           fp.unattended,
		PersistAllowedDomain: persistAllowedDomain,
		ProjectDocMaxBytes:   s.projectDocBudget(),
		CheckpointMaxBytes:   s.CheckpointMaxBytes,
		Logger:               r.log,
		Hooks:                r,
		BeforeQueued:         fp.beforeQueued,
		Attention:            (&notifier{argv: func() []string { return r.currentSettings().Notify }, ring: fp.ring, nobodyAsked: fp.nobodyAsked, log: r.log}).attention,
		SandboxSummary: func() string {
			c := sandbox.Probe()
			if root := s.SandboxWorkspaceWrite.CacheRoot; root != "" {
				c.CacheRoot = root // the configured one, not the probe's default
			}
			return c.Summary()
		},
		HelperPath: sandboxHelper(),
		// The MCP servers start with the first session; the first model
		// request waits for those still starting.
		ToolSources: r.toolSources(),
		// Their prompts are slash commands, /<server>:<prompt>.
		Prompts: r.promptSource(),
		// Where no sandbox confines commands, every one needs approval.
		SandboxUnavailable: func() string { return sandbox.Probe().Unavailable() },
	}
	opts.Defaults.Folders = slices.Clone(fp.folders)
	var mu sync.Mutex
	var ids []string
	// The MCP servers are offered the sessions' folders as roots (the
	// manager's own before its first session; see mcpRoots).
	roots := r.mcpRoots.owner(fp.cwd)
	if r.sessions != nil {
		opts.CheckpointDir = r.sessions.CheckpointDir
	}
	opts.Observe = func(info agent.SessionInfo, restored bool) (agent.Observer, error) {
		roots.add(info.Cwd)
		if r.sessions == nil {
			return nil, nil
		}
		obs, err := r.sessions.Observe(info, restored)
		if err == nil {
			mu.Lock()
			ids = append(ids, info.SessionID)
			mu.Unlock()
		}
		return obs, err
	}
	mgr, err := agent.NewManager(opts)
	if err != nil {
		roots.drop()
		return nil, err
	}
	r.mu.Lock()
	r.release[mgr] = func() {
		roots.drop()
		if r.sessions == nil {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		r.sessions.Release(ids...)
	}
	r.mu.Unlock()
	return mgr, nil
}

// persistAllowedDomain adds entry to allowed_domains in the user's own
// config file (the answer "always allow" to a network question).
func persistAllowedDomain(entry string) error {
	path := config.UserFile()
	if path == "" {
		return errors.New("no user config folder")
	}
	return config.AddAllowedDomain(path, entry)
}

// toolSources are the MCP servers as the agent starts them; nil when
// there are none.
func (r *root) toolSources() agent.ToolSources {
	if r.mcp.Empty() {
		return nil
	}
	return r.mcp
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
