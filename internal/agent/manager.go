// Package agent runs conversations: sessions with their history and
// settings, and turns, each one user prompt and everything the agent does
// until it answers. It talks to models through internal/model, acts
// through internal/tools, and reports to whoever drives it through the
// Frontend interface.
package agent

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
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

// Options configure a Manager. Model, Frontend and Tools are required.
type Options struct {
	Model    model.Client
	Frontend Frontend
	Tools    *tools.Registry
	// Files is the workspace view; nil reads the disk.
	Files FileReader

	// Defaults for new sessions.
	ModelName      string                // default "gpt-5-codex"
	WireAPI        string                // "responses" (default) or "chat"
	ApprovalPolicy policy.ApprovalPolicy // default on-request
	SandboxMode    policy.SandboxMode    // default workspace-write
	NetworkAccess  bool
	// Unattended: nobody answers approvals as they come (exec --yes).
	// Actions that stay inside the sandbox and the writable roots go to
	// the frontend's approver as usual; anything that would leave them
	// (an escalation, a rerun without the sandbox, a change outside the
	// writable roots) is refused with a reason for the model.
	Unattended bool
	// WritableRoots are folders besides the session cwd (and /tmp) that
	// commands and file changes may write in workspace-write mode.
	WritableRoots []string
	Cwd           string // default: the process's working directory

	// ReasoningEffort and ReasoningSummary apply to reasoning models;
	// defaults "medium" and "auto".
	ReasoningEffort  string
	ReasoningSummary string

	// UndoTurns is how many of a session's latest turns that changed
	// files stay undoable (default 100); older ones are forgotten, and
	// their saved contents with them.
	UndoTurns int

	// MaxRequests bounds the model requests of one turn (default 100).
	MaxRequests int
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

	Logger *slog.Logger
	Now    func() time.Time
}

// Manager owns the sessions of one frontend.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex
	sessions map[string]*session
	closed   bool

	summaryOnce sync.Once
	summary     string
	unavailable string // why no sandbox confines commands, "" when one does
}

// NewManager returns a manager with opts, defaults filled in.
func NewManager(opts Options) (*Manager, error) {
	if opts.Model == nil || opts.Frontend == nil || opts.Tools == nil {
		return nil, errors.New("agent: Model, Frontend and Tools are required")
	}
	if opts.Files == nil {
		opts.Files = tools.DiskView{}
	}
	if opts.ModelName == "" {
		opts.ModelName = "gpt-5-codex"
	}
	if opts.WireAPI == "" {
		opts.WireAPI = "responses"
	}
	if opts.ReasoningEffort == "" {
		opts.ReasoningEffort = "medium"
	}
	if opts.ReasoningSummary == "" {
		opts.ReasoningSummary = "auto"
	}
	if opts.UndoTurns <= 0 {
		opts.UndoTurns = DefaultUndoTurns
	}
	if opts.MaxRequests <= 0 {
		opts.MaxRequests = DefaultMaxRequests
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
	var err error
	if opts.ApprovalPolicy, opts.SandboxMode, err = parsePolicies(opts.ApprovalPolicy, opts.SandboxMode); err != nil {
		return nil, err
	}
	return &Manager{opts: opts, log: opts.Logger, sessions: make(map[string]*session)}, nil
}

// NewSession starts a conversation. Empty fields of o take the manager's
// defaults; a relative cwd is resolved against the default cwd.
func (m *Manager) NewSession(o SessionOptions) (SessionInfo, error) {
	s, err := m.newSession("s-"+randomID(), o)
	if err != nil {
		return SessionInfo{}, err
	}
	return s.info, m.add(s)
}

var (
	errRecordWithoutID = errors.New("agent: the session record has no id")
	errSessionExists   = errors.New("agent: a session with that id exists already")
)

// newSession builds a session with id from o and the defaults, without
// registering it.
func (m *Manager) newSession(id string, o SessionOptions) (*session, error) {
	info := SessionInfo{
		SessionID:      id,
		Cwd:            o.Cwd,
		Model:          o.Model,
		ApprovalPolicy: o.ApprovalPolicy,
		SandboxMode:    o.SandboxMode,
	}
	if info.Cwd == "" {
		info.Cwd = m.opts.Cwd
	} else if !filepath.IsAbs(info.Cwd) {
		info.Cwd = filepath.Join(m.opts.Cwd, info.Cwd)
	}
	info.Cwd = filepath.Clean(info.Cwd)
	if st, err := os.Stat(info.Cwd); err != nil {
		return nil, fmt.Errorf("session cwd: %w", err)
	} else if !st.IsDir() {
		return nil, fmt.Errorf("session cwd %s is not a directory", info.Cwd)
	}
	if info.Model == "" {
		info.Model = m.opts.ModelName
	}
	if info.ApprovalPolicy == "" {
		info.ApprovalPolicy = m.opts.ApprovalPolicy
	}
	if info.SandboxMode == "" {
		info.SandboxMode = m.opts.SandboxMode
	}
	var err error
	if info.ApprovalPolicy, info.SandboxMode, err = parsePolicies(info.ApprovalPolicy, info.SandboxMode); err != nil {
		return nil, err
	}
	boundary, err := policy.NewBoundary(info.SandboxMode, info.Cwd, m.opts.WritableRoots, policy.TempRoots(os.Getenv("TMPDIR")))
	if err != nil {
		return nil, fmt.Errorf("session boundary: %w", err)
	}
	return &session{mgr: m, info: info, boundary: boundary, undo: newUndoStore(m.opts.UndoTurns)}, nil
}

// add registers a new session.
func (m *Manager) add(s *session) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errors.New("agent: shutting down")
	}
	m.sessions[s.info.SessionID] = s
	m.log.Info("session started", "session", s.info.SessionID, "cwd", s.info.Cwd, "model", s.info.Model)
	return nil
}

// StartTurn starts a turn in the session and returns it at once; the turn
// runs in the background, reports through the frontend, and can be waited
// for through the handle.
func (m *Manager) StartTurn(sessionID string, in TurnInput) (*Turn, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	return s.startTurn(in)
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
