package agent

import (
	"cmp"
	"fmt"
	"os"
	"reflect"
	"slices"

	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

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
	if info.Mode, err = ParseMode(string(o.Mode)); err != nil {
		return sessionSettings{}, err
	}
	if o.Network != "" {
		if _, err := policy.ParseNetworkMode(string(o.Network)); err != nil {
			return sessionSettings{}, err
		}
	}
	if info.SandboxMode == policy.WorkspaceWrite && !cfg.AllowHomeWorkspace && homeWorkspace(info.Cwd) {
		// The home folder holds the shell's start-up files, ~/.ssh and
		// agent-ls's own config: a command that may write it may run
		// code outside the sandbox later. The frontends say why.
		info.SandboxMode = policy.ReadOnly
	}
	cfg.ModelName, cfg.ApprovalPolicy, cfg.SandboxMode = info.Model, info.ApprovalPolicy, info.SandboxMode
	info.NetworkLimit, info.Network = narrowNetwork(&cfg, o.Network)
	info.NetworkChoice = o.Network
	cfg.ReasoningEffort = cmp.Or(o.ReasoningEffort, cfg.ReasoningEffort)
	temp := policy.WritableTempRoots(os.Getenv("TMPDIR"), cfg.ExcludeTmpdirEnvVar, cfg.ExcludeSlashTmp)
	folders := sessionFolders(info.Cwd, cfg.Folders, o.Folders)
	roots := append(slices.Clone(cfg.WritableRoots), writableFolders(info.SandboxMode, folders, cfg)...)
	boundary, err := policy.NewBoundary(info.SandboxMode, info.Cwd, roots, temp)
	if err != nil {
		return sessionSettings{}, fmt.Errorf("session boundary: %w", err)
	}
	boundary = boundary.WithOwn(cfg.OwnFiles).WithFolders(folders)
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
	st, err := s.update(update)
	if err != nil {
		return SessionInfo{}, err
	}
	// A stricter policy ends the commands that run with more now.
	s.narrowTerminals(id, allowanceOf(st.info, st.cfg))
	return st.info, nil
}

// update is UpdateSession's change of s, under s.mu.
func (s *session) update(update func(*SessionOptions)) (sessionSettings, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o := s.opts
	update(&o)
	return s.choose(o)
}

// choose makes o what the session chose for itself (its cwd stays), and
// reports a change of its mode (modeChanged). Called with s.mu held.
func (s *session) choose(o SessionOptions) (sessionSettings, error) {
	o.Cwd = s.opts.Cwd
	st, err := s.mgr.settle(s.info.SessionID, o)
	if err != nil {
		return sessionSettings{}, err
	}
	was := s.mode()
	s.opts = o
	if st.info.Mode != was {
		s.modeChanged(st.info.Mode)
	}
	if s.running != nil {
		// The turn reads its settings without the lock: the next turn
		// settles them again (refresh sees a generation that never
		// matches).
		s.generation = staleGeneration
		return st, nil
	}
	s.adopt(st)
	return st, nil
}

// adopt makes st the settings of s, which runs no turn: if they differ
// from its settings so far, its next turn tells the model, and a change of
// its SessionInfo goes to its observer. Called with s.mu held.
func (s *session) adopt(st sessionSettings) {
	// The mode reaches the model through its instructions (plan.go),
	// not the environment context.
	was, now := s.info, st.info
	was.Mode, now.Mode = "", ""
	if now != was || !reflect.DeepEqual(st.cfg, s.cfg) {
		s.changed = true
	}
	if st.info != s.info {
		s.obs.Settings(st.info)
	}
	s.sessionSettings = st
}

// narrowNetwork narrows the network of cfg to chosen, when that is
// narrower (a session may only narrow it: on, ask, off), and returns the
// network cfg had and the one it has then.
func narrowNetwork(cfg *Defaults, chosen policy.NetworkMode) (limit, m policy.NetworkMode) {
	limit = cfg.NetworkMode
	if limit == "" {
		limit = policy.NetworkOff
		if cfg.NetworkAccess {
			limit = policy.NetworkOn
		}
	}
	m = limit
	if chosen != "" && policy.NarrowerNetwork(chosen, limit) {
		m = chosen
	}
	cfg.NetworkMode, cfg.NetworkAccess = m, m == policy.NetworkOn
	return limit, m
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
