package agent

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// TerminalInfo describes a command session (a terminal) for the user.
type TerminalInfo = tools.TerminalInfo

// Errors of the terminal methods; frontends map them to their own codes.
var (
	// ErrUnknownTerminal: the session has no command session of that id.
	ErrUnknownTerminal = tools.ErrNoTerminal
	// ErrTerminalEnded: the command session's command has ended.
	ErrTerminalEnded = tools.ErrTerminalEnded
)

// Why agent-ls ended a command session, as the model and the listing
// read it after "agent-ls killed this command session".
const (
	killedByUser     = "at the user's request"
	killedBySessionC = "because the user started a new conversation"
)

// ListTerminals describes the session's command sessions, oldest first:
// those running and the latest that ended.
func (m *Manager) ListTerminals(sessionID string) ([]TerminalInfo, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	return s.terminals.List(), nil
}

// KillTerminal ends command session id of the session and everything it
// started, for the user, and returns once its terminalExited was sent.
// The model is told at its next request.
func (m *Manager) KillTerminal(sessionID string, id int) error {
	s, err := m.session(sessionID)
	if err != nil {
		return err
	}
	if err := s.terminals.Kill(id, killedByUser); err != nil {
		return err
	}
	s.noteKilled([]int{id}, "The user killed command session %s; its output so far and its exit code are yours to read with write_stdin.")
	return nil
}

// WriteTerminal types data into command session id of the session for
// the user (answering a prompt the command shows, say). It is the user's
// own input: nobody is asked, wherever the command runs.
func (m *Manager) WriteTerminal(sessionID string, id int, data string) error {
	s, err := m.session(sessionID)
	if err != nil {
		return err
	}
	return s.terminals.Write(id, data)
}

// StopTerminals ends every running command session of the session, as
// KillTerminal does, and returns their ids.
func (m *Manager) StopTerminals(sessionID string) ([]int, error) {
	return m.stopTerminals(sessionID, killedByUser, "The user stopped command sessions %s.")
}

// CloseTerminals ends the command sessions of a session the user left
// for a new conversation (the language server's agent.newSession): the
// session itself stays, to be resumed.
func (m *Manager) CloseTerminals(sessionID string) ([]int, error) {
	return m.stopTerminals(sessionID, killedBySessionC, "agent-ls killed command sessions %s when the user started a new conversation.")
}

func (m *Manager) stopTerminals(sessionID, why, note string) ([]int, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	ids := s.terminals.KillIf(why, func(TerminalInfo) bool { return true })
	if len(ids) > 0 {
		m.log.Info("command sessions stopped", "session", sessionID, "terminals", tools.IDList(ids), "why", why)
		s.noteKilled(ids, note)
	}
	return ids, nil
}

// noteKilled keeps, for the model's next request, format with the ids.
func (s *session) noteKilled(ids []int, format string) {
	s.mu.Lock()
	s.notes = append(s.notes, fmt.Sprintf(format, tools.IDList(ids)))
	s.mu.Unlock()
}

// takeNotes returns, as one history item, what the model is to learn
// before its next request: command sessions agent-ls or the user ended,
// and after an interrupted turn the command sessions that still run. ok
// is false when there is nothing to tell. Called from the turn.
func (s *session) takeNotes() (it model.Item, ok bool) {
	s.mu.Lock()
	notes := s.notes
	s.notes = nil
	interrupted := s.interruptedTerminals
	s.interruptedTerminals = false
	s.mu.Unlock()
	if interrupted {
		// Read without s.mu: a terminal reports its end under its own
		// lock and then takes s.mu.
		if ids := s.terminals.Running(); len(ids) > 0 {
			notes = append(notes, fmt.Sprintf("The previous turn was interrupted by the user; an interrupt stops the turn, not the command sessions: %s still %s. Use write_stdin to check on them or end them.",
				sessionWords(ids), runWord(ids)))
		}
	}
	if len(notes) == 0 {
		return model.Item{}, false
	}
	return model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: terminalNoteHeader + strings.Join(notes, "\n")}, true
}

// terminalNoteHeader starts what agent-ls tells the model about its
// command sessions.
const terminalNoteHeader = "[agent-ls, about your command sessions]\n"

// sessionWords is "command session 1000" or "command sessions 1000, 1001".
func sessionWords(ids []int) string {
	if len(ids) == 1 {
		return "command session " + strconv.Itoa(ids[0])
	}
	return "command sessions " + tools.IDList(ids)
}

func runWord(ids []int) string {
	if len(ids) == 1 {
		return "runs"
	}
	return "run"
}
