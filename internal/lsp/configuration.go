package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Message is something to tell the user (window/showMessage).
type Message struct {
	// Error shows it as an error; otherwise it is a warning.
	Error bool
	Text  string
}

// Configurable is an Agent whose settings the editor can change while it
// runs.
type Configurable interface {
	// Configure applies the editor's settings: the agentLs section of
	// workspace/didChangeConfiguration, with the keys of
	// initializationOptions (protocol section 9). It returns what the
	// user should be told, such as a setting it could not use.
	Configure(settings json.RawMessage) []Message
}

// configSection is the section of the editor's settings that is ours.
const configSection = "agentLs"

// didChangeConfiguration hands the agentLs section of the editor's new
// settings to the agent. Settings without that section (a client that
// sends null and expects to be asked, or another server's settings)
// change nothing.
func (s *server) didChangeConfiguration(params json.RawMessage) {
	var p struct {
		Settings map[string]json.RawMessage `json:"settings"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		s.log.Warn("workspace/didChangeConfiguration: unreadable settings", "err", err)
		return
	}
	section, ok := p.Settings[configSection]
	if !ok {
		s.log.Debug("workspace/didChangeConfiguration without an agentLs section")
		return
	}
	s.mu.Lock()
	a := s.agent
	s.mu.Unlock()
	c, ok := a.(Configurable)
	if !ok {
		return
	}
	// Shown on the side: the reader that called this must not wait on
	// the editor reading its messages.
	msgs := c.Configure(section)
	go s.show(context.Background(), msgs...)
}

// show tells the user msgs now, or once the editor has initialized if it
// has not yet.
func (s *server) show(ctx context.Context, msgs ...Message) {
	s.mu.Lock()
	if !s.ready {
		s.pending = append(s.pending, msgs...)
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	for _, m := range msgs {
		typ := protocol.MessageTypeWarning
		if m.Error {
			typ = protocol.MessageTypeError
		}
		err := protocol.ClientDispatcher(s.conn).ShowMessage(ctx, &protocol.ShowMessageParams{Type: typ, Message: textcut.Visible(m.Text)})
		if err != nil {
			s.log.Warn("could not show a message", "err", err)
		}
	}
}
