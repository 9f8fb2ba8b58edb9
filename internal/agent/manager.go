// Package agent runs conversations: sessions with their history and
// settings, and turns, each one user prompt and everything the agent does
// until it answers. It talks to models through internal/model, acts
// through internal/tools, and reports to whoever drives it through the
// Frontend interface.
package agent

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/search"
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
	// PersistAllowedDomain adds an entry to allowed_domains in the user's
	// config (the "allowPersist" answer to a network question); nil, or
	// an error, leaves the host allowed for the session only.
	PersistAllowedDomain func(entry string) error

	// Observe, when set, gives each session the observer that keeps its
	// record: called when a session starts (restored false) and when one
	// is brought back from its record (Restore; restored true). An error
	// is logged and the session goes on unrecorded.
	Observe func(info SessionInfo, restored bool) (Observer, error)

	// UndoTurns is how many of a session's latest turns that changed
	// files stay undoable (default 100); older ones are forgotten, and
	// their saved contents with them.
	UndoTurns int
	// CheckpointDir, when set, names the folder of a session's
	// checkpoint store (beside its record, pruned with it); "" or nil
	// means a temporary folder that goes with the session.
	CheckpointDir func(sessionID string) string
	// CheckpointMaxBytes caps a session's checkpoint store (default
	// DefaultCheckpointMaxBytes); the oldest turns' contents go first.
	CheckpointMaxBytes int64

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
	// Attention, when set, is told when a turn ends and when the agent
	// starts waiting on the user; it is called from the turn and must
	// not block.
	Attention func(Attention)
	// BeforeQueued, when set, is called before a waiting prompt starts on
	// its own after the turn before it, with no lock of the manager or
	// the session held, so it may call UpdateDefaults: the config files
	// are read again, as before a turn the user starts. Nil: the defaults
	// stay as they are.
	BeforeQueued func()
	// ToolSources are tools from outside agent-ls (MCP servers) that
	// start when the first session needs them; nil means none.
	ToolSources ToolSources
	// Prompts are the prompt templates of servers (MCP servers') run as
	// slash commands, /<server>:<prompt>; nil means none. A session's
	// own tools (SessionOptions.Tools) that are a PromptSource offer
	// theirs too.
	Prompts PromptSource

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
	// NetworkMode is the network of workspace-write commands; "ask" gives
	// the session a proxy that asks per host (network.go). Empty: off,
	// or on with NetworkAccess.
	NetworkMode policy.NetworkMode
	// AllowedDomains and DeniedDomains are the proxy's configured hosts.
	AllowedDomains, DeniedDomains []string
	// ShellEnvironmentPolicy decides which environment variables the
	// commands the agent runs get; the zero value passes all but those
	// that look like credentials (policy.DefaultEnvExcludes).
	ShellEnvironmentPolicy policy.EnvPolicy
	// WritableRoots are folders besides the session cwd (and /tmp) that
	// commands and file changes may write in workspace-write mode.
	WritableRoots []string
	// Folders are the frontend's workspace folders (an editor's
	// workspaceFolders), absolute: every session's workspace holds
	// them besides its cwd (folders.go).
	Folders []string
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
	// ContextWarningPercent and RateLimitWarningPercent: the user is
	// asked before a turn whose history and prompt fill more than the
	// first share of the context window, or when the provider said less
	// than the second share of a rate limit is left (see
	// limits_warning.go); 0 turns a warning off.
	ContextWarningPercent, RateLimitWarningPercent int64
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
	// UnifiedExec offers exec_command and write_stdin instead of shell
	// (use_unified_exec); nil leaves it to the model family.
	UnifiedExec *bool
	// ContextWindow is the model's context window in tokens
	// (model_context_window); 0 takes the model family's.
	ContextWindow int64
	// AutoCompactTokenLimit is the context size in tokens at which the
	// history is summarised before the next request
	// (model_auto_compact_token_limit); 0 means 90% of the context
	// window, and never when that is unknown.
	AutoCompactTokenLimit int64
	// LanguageQueryTimeout bounds one question to the editor's language
	// servers (language_query_timeout_ms); 0 means
	// DefaultLanguageQueryTimeout.
	LanguageQueryTimeout time.Duration
}

// clone returns a copy of d that shares no slice or map with it.
func (d Defaults) clone() Defaults {
	d.WritableRoots = slices.Clone(d.WritableRoots)
	d.Folders = slices.Clone(d.Folders)
	d.DisabledTools = slices.Clone(d.DisabledTools)
	d.OwnFiles = slices.Clone(d.OwnFiles)
	d.ShellEnvironmentPolicy = d.ShellEnvironmentPolicy.Clone()
	return d
}

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
	d.Folders = slices.Clone(d.Folders)
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

	// mentions are the files and folders @-mentions complete (mentions.go).
	mentions search.FileIndex
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
	d := opts.Defaults
	if err := d.complete(); err != nil {
		return nil, err
	}
	m := &Manager{opts: opts, log: opts.Logger, defaults: d, sessions: make(map[string]*session)}
	m.mentions.Skip = m.skipHiddenOwn
	return m, nil
}

// Defaults returns what new sessions start with now.
func (m *Manager) Defaults() Defaults {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.defaults.clone()
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
//
// Command sessions that run with more than the new settings allow are
// killed now (see allowance.exceeds).
func (m *Manager) UpdateDefaults(update func(*Defaults)) error {
	m.mu.Lock()
	d := m.defaults.clone()
	update(&d)
	if err := d.complete(); err != nil {
		m.mu.Unlock()
		return fmt.Errorf("agent: defaults: %w", err)
	}
	m.defaults = d
	m.generation++
	m.mu.Unlock()
	m.narrowAll(d)
	return nil
}

// current returns the defaults and their generation.
func (m *Manager) current() (Defaults, uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.defaults.clone(), m.generation
}
