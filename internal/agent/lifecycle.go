package agent

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agent-ls/agent-ls/internal/tools"
)

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
	s.terminals = tools.NewTerminals(s.emitTerminal)
	st, err := m.settle(id, o)
	if err != nil {
		return nil, err
	}
	s.checkpoints = m.newCheckpoints(id, append([]string{o.Cwd}, st.boundary.Folders()...))
	s.sessionSettings = st
	if m.opts.ToolSources != nil {
		// The servers start while the user writes the first prompt.
		m.opts.ToolSources.Start()
	}
	return s, nil
}

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
	// So is what the sandbox enforces here, which that request's
	// environment context says (asked once per manager).
	go m.sandboxState()
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
	if err := s.boundInput(&in); err != nil {
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
	s.checkpoints.close()
	s.sockets.Close()
	s.terminals.Close()
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
		s.checkpoints.close()
		s.sockets.Close()
		s.terminals.Close()
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

func randomID() string {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err) // crypto/rand does not fail on Linux
	}
	return hex.EncodeToString(b[:])
}
