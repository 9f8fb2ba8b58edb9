package acp

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/mcp"
)

// session is an ACP session: the client's id for one of the agent's
// sessions. /new points it at a fresh agent session; the ACP id stays.
type session struct {
	id string

	mu       sync.Mutex
	agentID  string
	info     agent.SessionInfo
	effort   string
	turn     *agent.Turn
	cancel   bool // session/cancel arrived for the running turn
	titled   bool
	changing []string // the turns that changed files, oldest first (for /undo)
	view     *eventView
	// servers are the MCP servers the client named for the session
	// (nil: none); the session stops them.
	servers SessionServers
	// commands are the slash commands last sent; nil until the first
	// are (after session/new's answer).
	commands []sdk.AvailableCommand
	// folders are the client's additionalDirectories for the session.
	folders []string
}

// keepServers makes servers the session's, stopping those it had; on a
// connection that is ending they stop at once.
func (s *server) keepServers(ss *session, servers SessionServers) {
	ss.mu.Lock()
	old := ss.servers
	ss.servers = servers
	ss.mu.Unlock()
	if old != nil {
		old.Close()
	}
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if closed {
		ss.stopServers()
	}
}

// stopServers stops the session's MCP servers.
func (ss *session) stopServers() {
	ss.mu.Lock()
	servers := ss.servers
	ss.servers = nil
	ss.mu.Unlock()
	if servers != nil {
		servers.Close()
	}
}

// cwdOf is the session's working directory.
func (ss *session) cwdOf() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.info.Cwd
}

// checkCwd wants an absolute directory, as the protocol says.
func checkCwd(cwd string) error {
	if cwd == "" || !filepath.IsAbs(cwd) {
		return invalidParams("cwd must be an absolute path, got %q", cwd)
	}
	return nil
}

// checkDirs wants absolute additional directories, as the protocol says.
func checkDirs(dirs []string) error {
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			return invalidParams("additionalDirectories must be absolute paths, got %q", d)
		}
	}
	return nil
}

// NewSession starts a session. Its answer goes out before anything about
// the session: the slash commands follow it (JetBrains hangs otherwise).
func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	a, err := s.theAgent()
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := s.authRequired(); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := checkCwd(p.Cwd); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	if err := checkDirs(p.AdditionalDirectories); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	// The client's MCP servers start with the session, for it alone.
	var n mcp.Notices
	servers := s.startServers(a, "session/new", p.Cwd, p.McpServers, &n)
	// The additional directories are workspace folders of the session:
	// inside its boundary, each writable unless it must not be.
	info, err := a.NewSession(agent.SessionOptions{Cwd: p.Cwd, Tools: servers, Folders: p.AdditionalDirectories})
	if err != nil {
		if servers != nil {
			servers.Close()
		}
		return sdk.NewSessionResponse{}, requestError(err)
	}
	ss := s.register(info.SessionID, info)
	ss.mu.Lock()
	ss.folders = p.AdditionalDirectories
	ss.mu.Unlock()
	s.keepServers(ss, servers)
	s.wire.afterAnswer(info.SessionID, func() {
		s.sendCommands(ss)
		// What the servers have to say follows the answer too.
		n.Listen(func(msg string) { s.tellUser(ss, msg) })
		s.told.Listen(s.tellAll)
	})
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(info.SessionID), Modes: s.modes(info), ConfigOptions: s.configOptions(ss)}, nil
}

// register makes acpID an ACP session over the agent's session info.
func (s *server) register(acpID string, info agent.SessionInfo) *session {
	ss := &session{id: acpID, agentID: info.SessionID, info: info, effort: s.opts.ReasoningEffort, view: newEventView()}
	s.mu.Lock()
	old, replaced := s.sessions[acpID]
	if replaced {
		delete(s.byAgent, old.agentIDLocked())
	}
	s.sessions[acpID] = ss
	s.byAgent[info.SessionID] = ss
	s.mu.Unlock()
	if replaced {
		old.stopServers()
	}
	return ss
}

func (ss *session) agentIDLocked() string {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	return ss.agentID
}

// session finds an ACP session.
func (s *server) session(id sdk.SessionId) (*session, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[string(id)]
	if !ok {
		return nil, &sdk.RequestError{Code: -32002, Message: "Resource not found: no session " + string(id) + " on this connection (session/load or session/resume brings a kept one back)"}
	}
	return ss, nil
}

// bringBack resumes a kept session into the agent and registers it, with
// the MCP servers the client names now (those it had on this connection
// stop). What the servers have to tell the user waits for tell, which
// the caller calls once the session is drawn.
func (s *server) bringBack(ctx context.Context, method string, id sdk.SessionId, cwd string, dirs []string, named []sdk.McpServer) (ss *session, rs *agent.ResumedSession, tell func(), err error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, nil, nil, err
	}
	if err := s.authRequired(); err != nil {
		return nil, nil, nil, err
	}
	if err := checkCwd(cwd); err != nil {
		return nil, nil, nil, err
	}
	if err := checkDirs(dirs); err != nil {
		return nil, nil, nil, err
	}
	rs, err = a.ResumeSession(ctx, string(id))
	if err != nil {
		return nil, nil, nil, requestError(err)
	}
	s.mu.Lock()
	ss, live := s.sessions[string(id)]
	s.mu.Unlock()
	if !live || ss.agentIDLocked() != rs.Info.SessionID {
		ss = s.register(string(id), rs.Info)
	}
	n := &mcp.Notices{}
	tell = func() {
		n.Listen(func(msg string) { s.tellUser(ss, msg) })
		s.told.Listen(s.tellAll)
	}
	// The agent's session gets the servers named now, or none: a session
	// live in the agent may still hold servers this connection stopped
	// (session/close) or gave to another conversation (/new).
	servers := s.startServers(a, method, cwd, named, n)
	info, err := a.UpdateSession(rs.Info.SessionID, func(o *agent.SessionOptions) { o.Tools, o.Folders = servers, dirs })
	switch {
	case err == nil:
		rs.Info = info
	case servers == nil:
		// Nothing to give it: the session comes back as it is.
		s.log.Warn("acp: the session's MCP servers could not be withdrawn", "session", rs.Info.SessionID, "err", err)
	default:
		servers.Close()
		return nil, nil, nil, requestError(err)
	}
	ss.mu.Lock()
	ss.info, ss.folders = rs.Info, dirs
	ss.mu.Unlock()
	s.keepServers(ss, servers)
	return ss, rs, tell, nil
}

// LoadSession replays the session's whole conversation, then answers.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	ss, rs, tell, err := s.bringBack(ctx, "session/load", p.SessionId, p.Cwd, p.AdditionalDirectories, p.McpServers)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	// The replay's updates go out in a few writes, before the answer.
	s.wire.hold()
	s.replay(ss, rs.Items)
	s.sendCommands(ss)
	tell()
	err = s.out.flush(ctx)
	s.wire.release()
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	return sdk.LoadSessionResponse{Modes: s.modes(rs.Info), ConfigOptions: s.configOptions(ss)}, nil
}

// ResumeSession brings a session back without replaying it.
func (s *server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	ss, rs, tell, err := s.bringBack(ctx, "session/resume", p.SessionId, p.Cwd, p.AdditionalDirectories, p.McpServers)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	defer tell()
	// Undo and the title work as if the session had been replayed.
	ss.mu.Lock()
	for _, raw := range rs.Items {
		if ev, err := event.Parse(raw); err == nil {
			ss.noteKept(ev)
		}
	}
	ss.mu.Unlock()
	s.sendCommands(ss)
	if err := s.out.flush(ctx); err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	return sdk.ResumeSessionResponse{Modes: s.modes(rs.Info), ConfigOptions: s.configOptions(ss)}, nil
}

// noteKept remembers from a kept event what /undo and the title need.
// Called with ss.mu held.
func (ss *session) noteKept(ev event.Event) {
	switch p := ev.Payload.(type) {
	case event.TurnStarted:
		ss.titled = ss.titled || p.Prompt != ""
	case event.FileChange:
		if p.Status == event.ChangeApplied && (len(ss.changing) == 0 || ss.changing[len(ss.changing)-1] != ev.TurnID) {
			ss.changing = append(ss.changing, ev.TurnID)
		}
	case event.Rewound:
		ss.changing = slices.DeleteFunc(ss.changing, func(t string) bool { return slices.Contains(p.TurnIDs, t) })
	}
}

// ListSessions lists the kept conversations (of cwd when given): the
// sessions with at least one turn.
func (s *server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	a, err := s.theAgent()
	if err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	cwd := ""
	if p.Cwd != nil {
		cwd = filepath.Clean(*p.Cwd)
	}
	list, err := a.ListSessions(cwd)
	if err != nil {
		return sdk.ListSessionsResponse{}, requestError(err)
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}}
	for _, l := range list {
		// Conversations only: a session nobody prompted (the one the
		// client just opened, say) has nothing to resume.
		if (cwd != "" && l.Cwd != cwd) || l.Turns == 0 {
			continue
		}
		si := sdk.SessionInfo{SessionId: sdk.SessionId(l.SessionID), Cwd: l.Cwd}
		if l.Title != "" {
			si.Title = sdk.Ptr(l.Title)
		}
		if !l.UpdatedAt.IsZero() {
			si.UpdatedAt = sdk.Ptr(l.UpdatedAt.UTC().Format(time.RFC3339))
		}
		out.Sessions = append(out.Sessions, si)
	}
	return out, nil
}

// CloseSession ends the session's turn, stops the MCP servers the client
// named for it and forgets it, on this connection and in the agent (whose
// memory of it goes and whose hold on its record ends, so another
// agent-ls may resume it); its record stays for session/load.
func (s *server) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	ss, err := s.session(p.SessionId)
	if err != nil {
		return sdk.CloseSessionResponse{}, err
	}
	s.interrupt(ss)
	agentID := ss.agentIDLocked()
	s.mu.Lock()
	delete(s.sessions, ss.id)
	delete(s.byAgent, agentID)
	s.mu.Unlock()
	// Its MCP servers stop with it.
	ss.stopServers()
	if a, err := s.theAgent(); err == nil {
		if err := a.Forget(agentID); err != nil && !errors.Is(err, agent.ErrUnknownSession) {
			s.log.Warn("acp: the closed session stays in memory", "session", agentID, "err", err)
		}
	}
	return sdk.CloseSessionResponse{}, nil
}
