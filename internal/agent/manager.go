// Package agent runs conversations: sessions with their history and
// settings, and turns, each one user prompt and everything the agent does
// until it answers. It talks to models through internal/model, acts
// through internal/tools, and reports to whoever drives it through the
// Frontend interface.
package agent

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// DefaultUndoTurns is how many turns of a session stay undoable.
const DefaultUndoTurns = 100

// DefaultMaxRequests bounds the model requests of one turn.
const DefaultMaxRequests = 100

// FileReader reads files the way the user sees them (editor buffers over
// disk); the tools read through it too.
type FileReader = tools.FileView

// Options configure a Manager. Frontend, Tools and a model (Model or
// ClientFor) are required.
type Options struct {
	// Model is the client every session talks to, unless ClientFor is set.
	Model model.Client
	// ClientFor picks the model client of a new session from its settings
	// (the model name, later its provider), so sessions may talk to
	// different servers; it is called once per session, when the session
	// starts, and its error fails the session's start. Nil means Model for
	// every session.
	ClientFor func(SessionInfo) (model.Client, error)
	Frontend  Frontend
	// Reviewer, when set, shows each change set to the user before it is
	// applied (protocol section 5.3); nil applies changes as proposed.
	Reviewer Reviewer
	Tools    *tools.Registry
	// Files is the workspace view; nil reads the disk.
	Files FileReader

	// Defaults are what new sessions start with (UpdateDefaults changes
	// them later); their zero fields take agent-ls's own defaults.
	Defaults

	// Unattended: nobody answers approvals as they come (exec --yes).
	// Actions that stay inside the sandbox and the writable roots go to
	// the frontend's approver as usual; anything that would leave them
	// (an escalation, a rerun without the sandbox, a change outside the
	// writable roots) is refused with a reason for the model.
	Unattended bool
	Cwd        string // default: the process's working directory

	// Observe, when set, gives each session the observer that keeps its
	// record: called when a session starts (restored false) and when one
	// is brought back from its record (Restore; restored true). An error
	// is logged and the session goes on unrecorded.
	Observe func(info SessionInfo, restored bool) (Observer, error)

	// UndoTurns is how many of a session's latest turns that changed
	// files stay undoable (default 100); older ones are forgotten, and
	// their saved contents with them.
	UndoTurns int

	// ProjectDocMaxBytes is the AGENTS.md budget (default 32 KiB; negative
	// disables AGENTS.md).
	ProjectDocMaxBytes int
	// SandboxSummary describes what the sandbox can enforce on this
	// machine, for the environment context; it is called once, when the
	// first session starts its first turn.
	SandboxSummary func() string
	// SandboxUnavailable says why no sandbox can confine commands on this
	// machine (another system, a build without cgo, a kernel without
	// Landlock or seccomp), or "" when one can; called once, like
	// SandboxSummary. Nil means a sandbox is available. Without one every
	// command needs the user's approval and, approved, runs unconfined;
	// under "never" and in unattended runs commands are refused.
	SandboxUnavailable func() string
	// HelperPath is the agent-ls binary that runs the sandbox helper;
	// empty means this executable.
	HelperPath string
	// Hooks are the user's checks around every tool call (see
	// ToolHooks); nil means none.
	Hooks ToolHooks
	// ToolSources are tools from outside agent-ls (MCP servers) that
	// start when the first session needs them; nil means none.
	ToolSources ToolSources

	Logger *slog.Logger
	Now    func() time.Time
}

// Defaults are what a new session starts with where its SessionOptions
// say nothing. A session keeps the settings it started with.
type Defaults struct {
	ModelName string // default "gpt-5-codex"
	// Provider names the model provider (see SessionInfo.Provider);
	// ClientFor gets it.
	Provider       string
	ApprovalPolicy policy.ApprovalPolicy // default on-request
	SandboxMode    policy.SandboxMode    // default workspace-write
	NetworkAccess  bool
	// ShellEnvironmentPolicy decides which environment variables the
	// commands the agent runs get; the zero value passes all but those
	// that look like credentials (policy.DefaultEnvExcludes).
	ShellEnvironmentPolicy policy.EnvPolicy
	// WritableRoots are folders besides the session cwd (and /tmp) that
	// commands and file changes may write in workspace-write mode.
	WritableRoots []string
	// ExcludeTmpdirEnvVar and ExcludeSlashTmp take $TMPDIR and /tmp out
	// of the writable roots of workspace-write mode, for commands and file
	// changes alike ([sandbox_workspace_write] exclude_tmpdir_env_var and
	// exclude_slash_tmp).
	ExcludeTmpdirEnvVar bool
	ExcludeSlashTmp     bool
	// CacheRoot is the absolute directory where sandboxed commands keep
	// their toolchain caches ([sandbox_workspace_write] cache_root); empty
	// means the sandbox's default.
	CacheRoot string
	// AllowProjectSockets lets sandboxed commands with the network off
	// connect to any Unix socket below the project root, also one made
	// outside the sandbox ([sandbox_workspace_write]
	// allow_project_sockets); by default only to sockets the session's
	// own sandboxed commands bound.
	AllowProjectSockets bool
	// AllowHomeWorkspace lets sessions whose cwd is the home folder, or
	// one of its ancestors, run in workspace-write mode
	// (allow_home_workspace); without it their sandbox is read-only.
	AllowHomeWorkspace bool
	// OwnFiles are agent-ls's own files and folders (its config and
	// state folders, the programs its config runs): sandboxed commands
	// may not write them and changes to them ask first, wherever the
	// workspace is (see policy.OwnPath).
	OwnFiles []policy.OwnPath
	// ReasoningEffort and ReasoningSummary apply to reasoning models;
	// defaults "medium" and "auto".
	ReasoningEffort  string
	ReasoningSummary string
	// Verbosity ("low", "medium" or "high") is sent to models that take
	// one; empty sends none.
	Verbosity string
	// WebSearch offers the hosted web_search tool to models that can use
	// it, on the Responses API.
	WebSearch bool
	// DisabledTools names built-in tools turned off (e.g. "view_image",
	// "update_plan"): they are not offered, and a call of one is answered
	// as a call of an unknown tool.
	DisabledTools []string
	// MaxRequests bounds the model requests of one turn (default 100).
	MaxRequests int
	// ContextWindow is the model's context window in tokens
	// (model_context_window); 0 takes the model family's.
	ContextWindow int64
	// AutoCompactTokenLimit is the context size in tokens at which the
	// history is summarised before the next request
	// (model_auto_compact_token_limit); 0 means 90% of the context
	// window, and never when that is unknown.
	AutoCompactTokenLimit int64
}

// defaults are the Defaults opts set.
func (o *Options) defaults() Defaults { return o.Defaults }

// complete fills the empty fields of d with agent-ls's own defaults and
// checks the policy names.
func (d *Defaults) complete() error {
	if d.ModelName == "" {
		d.ModelName = "gpt-5-codex"
	}
	if d.ReasoningEffort == "" {
		d.ReasoningEffort = "medium"
	}
	if d.ReasoningSummary == "" {
		d.ReasoningSummary = "auto"
	}
	if d.MaxRequests <= 0 {
		d.MaxRequests = DefaultMaxRequests
	}
	if d.ContextWindow < 0 || d.AutoCompactTokenLimit < 0 {
		return fmt.Errorf("the context window (%d) and the auto-compaction limit (%d) cannot be negative", d.ContextWindow, d.AutoCompactTokenLimit)
	}
	switch d.Verbosity {
	case "", "low", "medium", "high":
	default:
		return fmt.Errorf("unknown verbosity %q (want low, medium or high)", d.Verbosity)
	}
	d.WritableRoots = slices.Clone(d.WritableRoots)
	d.DisabledTools = slices.Clone(d.DisabledTools)
	d.ShellEnvironmentPolicy = d.ShellEnvironmentPolicy.Clone()
	if err := d.ShellEnvironmentPolicy.Validate(); err != nil {
		return err
	}
	if d.CacheRoot != "" {
		if !filepath.IsAbs(d.CacheRoot) {
			return fmt.Errorf("cache_root %q is not an absolute path", d.CacheRoot)
		}
		d.CacheRoot = filepath.Clean(d.CacheRoot)
	}
	var err error
	d.ApprovalPolicy, d.SandboxMode, err = parsePolicies(d.ApprovalPolicy, d.SandboxMode)
	return err
}

// Manager owns the sessions of one frontend.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	defaults Defaults
	// generation counts the changes of defaults, so a session sees at its
	// next turn that they changed.
	generation uint64
	sessions   map[string]*session
	closed     bool

	summaryOnce sync.Once
	summary     string
	unavailable string // why no sandbox confines commands, "" when one does
}

// NewManager returns a manager with opts, defaults filled in.
func NewManager(opts Options) (*Manager, error) {
	if (opts.Model == nil && opts.ClientFor == nil) || opts.Frontend == nil || opts.Tools == nil {
		return nil, errors.New("agent: a model (Model or ClientFor), Frontend and Tools are required")
	}
	if opts.ClientFor == nil {
		client := opts.Model
		opts.ClientFor = func(SessionInfo) (model.Client, error) { return client, nil }
	}
	if opts.Files == nil {
		opts.Files = tools.DiskView{}
	}
	if opts.UndoTurns <= 0 {
		opts.UndoTurns = DefaultUndoTurns
	}
	if opts.ProjectDocMaxBytes == 0 {
		opts.ProjectDocMaxBytes = 32 << 10
	}
	if opts.Cwd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, fmt.Errorf("agent: working directory: %w", err)
		}
		opts.Cwd = wd
	}
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	d := opts.defaults()
	if err := d.complete(); err != nil {
		return nil, err
	}
	return &Manager{opts: opts, log: opts.Logger, defaults: d, sessions: make(map[string]*session)}, nil
}

// Defaults returns what new sessions start with now.
func (m *Manager) Defaults() Defaults {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.defaults
	d.WritableRoots = slices.Clone(d.WritableRoots)
	d.DisabledTools = slices.Clone(d.DisabledTools)
	d.ShellEnvironmentPolicy = d.ShellEnvironmentPolicy.Clone()
	return d
}

// UpdateDefaults changes the settings sessions run with
// (workspace/didChangeConfiguration, a reloaded config file): update gets
// the current defaults to change; fields it empties take agent-ls's own
// defaults. A bad policy name is an error and changes nothing. New
// sessions start with the new defaults; an existing session takes them at
// its next turn, except what it chose itself when it started (its model,
// policies), and tells the model what changed. A running turn keeps the
// settings it started with. update runs with the manager locked, so
// concurrent updates do not lose each other's changes; it must not call
// the manager.
func (m *Manager) UpdateDefaults(update func(*Defaults)) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.defaults
	d.WritableRoots = slices.Clone(d.WritableRoots)
	d.DisabledTools = slices.Clone(d.DisabledTools)
	d.ShellEnvironmentPolicy = d.ShellEnvironmentPolicy.Clone()
	update(&d)
	if err := d.complete(); err != nil {
		return fmt.Errorf("agent: defaults: %w", err)
	}
	m.defaults = d
	m.generation++
	return nil
}

// current returns the defaults and their generation.
func (m *Manager) current() (Defaults, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.defaults
	d.WritableRoots = slices.Clone(d.WritableRoots)
	return d, m.generation
}

// NewSession starts a conversation. Empty fields of o take the manager's
// defaults; a relative cwd is resolved against the default cwd.
func (m *Manager) NewSession(o SessionOptions) (SessionInfo, error) {
	s, err := m.newSession("s-"+randomID(), o)
	if err != nil {
		return SessionInfo{}, err
	}
	m.observe(s, false)
	return s.info, m.add(s)
}

var (
	errRecordWithoutID = errors.New("agent: the session record has no id")
	errSessionExists   = errors.New("agent: a session with that id exists already")
)

// newSession builds a session with id from o and the defaults, without
// registering it.
func (m *Manager) newSession(id string, o SessionOptions) (*session, error) {
	if o.Cwd == "" {
		o.Cwd = m.opts.Cwd
	} else if !filepath.IsAbs(o.Cwd) {
		o.Cwd = filepath.Join(m.opts.Cwd, o.Cwd)
	}
	o.Cwd = filepath.Clean(o.Cwd)
	if st, err := os.Stat(o.Cwd); err != nil {
		return nil, fmt.Errorf("session cwd: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("session cwd %s is not a directory", o.Cwd)
	}
	s := &session{mgr: m, opts: o, undo: newUndoStore(m.opts.UndoTurns), obs: noObserver{}, sockets: new(tools.SocketRegistry)}
	st, err := m.settle(id, o)
	if err != nil {
		return nil, err
	}
	s.sessionSettings = st
	if m.opts.ToolSources != nil {
		// The servers start while the user writes the first prompt.
		m.opts.ToolSources.Start()
	}
	return s, nil
}

// ToolSources are tools that come from outside agent-ls and take time to
// start (the tools of MCP servers, which register themselves in the tool
// registry once they run).
type ToolSources interface {
	// Start starts the sources in the background; calls after the first
	// do nothing. It never blocks.
	Start()
	// Ready waits until every source still starting runs or has failed
	// (each within its own startup timeout), or ctx ends, so the next
	// model request offers the tools of all that started.
	Ready(ctx context.Context)
}

// SessionTools are tools of one session alone, beside the manager's
// registry (Options.Tools): the MCP servers a client names for one
// session (ACP's session/new). The session starts them when it starts;
// before each model request it waits for those still starting, like
// ToolSources, and offers the tools of Snapshot with the registry's. A
// tool named like one of the registry is not offered: the registry's
// stays.
type SessionTools interface {
	ToolSources
	// Snapshot returns the session's tools as they are now.
	Snapshot() *tools.Snapshot
}

// sessionSettings are what a session runs with: the manager's defaults
// of one generation, with what the session chose itself.
type sessionSettings struct {
	info       SessionInfo
	cfg        Defaults
	client     model.Client
	boundary   *policy.Boundary
	tools      SessionTools // the session's own tools; nil: none
	generation uint64
}

// settle works out the settings of session id from the current defaults
// and the session's own options (whose Cwd is absolute and checked).
func (m *Manager) settle(id string, o SessionOptions) (sessionSettings, error) {
	cfg, gen := m.current()
	info := SessionInfo{
		SessionID:      id,
		Cwd:            o.Cwd,
		Model:          cmp.Or(o.Model, cfg.ModelName),
		Provider:       cfg.Provider,
		ApprovalPolicy: cmp.Or(o.ApprovalPolicy, cfg.ApprovalPolicy),
		SandboxMode:    cmp.Or(o.SandboxMode, cfg.SandboxMode),
	}
	var err error
	if info.ApprovalPolicy, info.SandboxMode, err = parsePolicies(info.ApprovalPolicy, info.SandboxMode); err != nil {
		return sessionSettings{}, err
	}
	if info.SandboxMode == policy.WorkspaceWrite && !cfg.AllowHomeWorkspace && homeWorkspace(info.Cwd) {
		// The home folder holds the shell's start-up files, ~/.ssh and
		// agent-ls's own config: a command that may write it may run
		// code outside the sandbox later. The frontends say why.
		info.SandboxMode = policy.ReadOnly
	}
	cfg.ModelName, cfg.ApprovalPolicy, cfg.SandboxMode = info.Model, info.ApprovalPolicy, info.SandboxMode
	cfg.ReasoningEffort = cmp.Or(o.ReasoningEffort, cfg.ReasoningEffort)
	temp := policy.WritableTempRoots(os.Getenv("TMPDIR"), cfg.ExcludeTmpdirEnvVar, cfg.ExcludeSlashTmp)
	boundary, err := policy.NewBoundary(info.SandboxMode, info.Cwd, cfg.WritableRoots, temp)
	if err != nil {
		return sessionSettings{}, fmt.Errorf("session boundary: %w", err)
	}
	boundary = boundary.WithOwn(cfg.OwnFiles)
	client, err := m.opts.ClientFor(info)
	if err != nil {
		return sessionSettings{}, fmt.Errorf("session model client: %w", err)
	}
	if o.Tools != nil {
		// The session's own servers start while the user writes.
		o.Tools.Start()
	}
	return sessionSettings{info: info, cfg: cfg, client: client, boundary: boundary, tools: o.Tools, generation: gen}, nil
}

// UpdateSession changes what session id chose for itself (its model,
// policies, reasoning effort, its own tools; not its cwd), as a front
// end's session settings do (ACP's modes and config options, the MCP
// servers of session/load). A bad value is an error
// and changes nothing. A running turn keeps the settings it started
// with; the next turn takes the new ones and tells the model. It returns
// the session's settings as the next turn will have them.
func (m *Manager) UpdateSession(id string, update func(*SessionOptions)) (SessionInfo, error) {
	s, err := m.session(id)
	if err != nil {
		return SessionInfo{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.opts
	update(&o)
	o.Cwd = s.opts.Cwd
	st, err := m.settle(id, o)
	if err != nil {
		return SessionInfo{}, err
	}
	s.opts = o
	if s.running != nil {
		// The turn reads its settings without the lock: the next turn
		// settles them again (refresh sees a generation that never
		// matches).
		s.generation = staleGeneration
		return st.info, nil
	}
	if st.info != s.info || !reflect.DeepEqual(st.cfg, s.cfg) {
		s.changed = true
	}
	if st.info != s.info {
		s.obs.Settings(st.info)
	}
	s.sessionSettings = st
	return st.info, nil
}

// homeWorkspace reports whether cwd is the home folder or above it.
func homeWorkspace(cwd string) bool {
	home, err := os.UserHomeDir()
	return err == nil && policy.HomeWorkspace(cwd, home)
}

// HomeWorkspaceReadOnly says, for a session that would run in mode at
// cwd, why its sandbox is read-only because cwd is the home folder (or
// above it) and allow is unset; "" when it is not. Frontends show it to
// the user.
func HomeWorkspaceReadOnly(cwd string, mode policy.SandboxMode, allow bool) string {
	if mode == "" {
		mode = policy.DefaultSandboxMode
	}
	if mode != policy.WorkspaceWrite || allow || !homeWorkspace(cwd) {
		return ""
	}
	return "agent-ls: the workspace " + cwd + " is your home folder (or holds it), so commands run read-only: a command that could write there could change your shell's start-up files or agent-ls's own config and run code outside the sandbox later. Open a project folder instead, or set allow_home_workspace = true in your own config.toml to allow it."
}

// staleGeneration marks a session whose settings must be settled again
// before its next turn.
const staleGeneration = ^uint64(0)

// add registers a new session.
func (m *Manager) add(s *session) error {
	// Read before the session can be reached (and its settings changed).
	client, info := s.client, s.info
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return errors.New("agent: shutting down")
	}
	m.sessions[info.SessionID] = s
	m.mu.Unlock()
	m.log.Info("session started", "session", info.SessionID, "cwd", info.Cwd, "model", info.Model)
	// The session's first request needs a connection to the provider:
	// it is opened now, while the user writes the prompt.
	if p, ok := client.(preconnecter); ok {
		p.Preconnect()
	}
	return nil
}

// preconnecter is a model client that opens its connection ahead of its
// first request (model.New's).
type preconnecter interface{ Preconnect() }

// StartTurn starts a turn in the session and returns it at once; the turn
// runs in the background, reports through the frontend, and can be waited
// for through the handle.
func (m *Manager) StartTurn(sessionID string, in TurnInput) (*Turn, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	return s.startTurn(in, false)
}

// Interrupt ends the session's running turn (turnID "" means whichever
// runs) and returns once it has ended.
func (m *Manager) Interrupt(sessionID, turnID string) error {
	s, err := m.session(sessionID)
	if err != nil {
		return err
	}
	return s.interrupt(turnID)
}

// Forget ends the session's running turn and drops the session: what it
// kept in memory goes, its record (if one is kept) stays, and Restore
// can bring it back. A front end whose client closed a session calls it.
func (m *Manager) Forget(sessionID string) error {
	s, err := m.session(sessionID)
	if err != nil {
		return err
	}
	if err := s.interrupt(""); err != nil && !errors.Is(err, ErrNoTurn) {
		return err
	}
	m.mu.Lock()
	delete(m.sessions, sessionID)
	m.mu.Unlock()
	s.undo.close()
	s.sockets.Close()
	m.log.Info("session forgotten", "session", sessionID)
	return nil
}

// Close interrupts every running turn and waits for them to end.
func (m *Manager) Close() {
	m.mu.Lock()
	m.closed = true
	sessions := make([]*session, 0, len(m.sessions))
	for _, s := range m.sessions {
		sessions = append(sessions, s)
	}
	m.mu.Unlock()
	for _, s := range sessions {
		if err := s.interrupt(""); err != nil && !errors.Is(err, ErrNoTurn) {
			m.log.Warn("interrupt on close", "session", s.info.SessionID, "err", err)
		}
		s.undo.close()
		s.sockets.Close()
	}
}

func (m *Manager) session(id string) (*session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s, ok := m.sessions[id]
	if !ok {
		return nil, fmt.Errorf("%w: %q", ErrUnknownSession, id)
	}
	return s, nil
}

// parsePolicies checks the policy names (empty: the defaults) against the
// one list in package policy.
func parsePolicies(approval policy.ApprovalPolicy, mode policy.SandboxMode) (policy.ApprovalPolicy, policy.SandboxMode, error) {
	a, err := policy.ParseApprovalPolicy(string(approval))
	if err != nil {
		return "", "", err
	}
	m, err := policy.ParseSandboxMode(string(mode))
	if err != nil {
		return "", "", err
	}
	return a, m, nil
}

func randomID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b[:])
}
