package lsp

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"context"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/event"
)

// Limits of the answer shown in a message box; the transcript has the
// whole of it.
const (
	maxNoticeLines = 15
	maxNoticeRunes = 1200
)

// plain shows the turns to a client that did not opt into agent/event
// (protocol section 7.1): streamed text as window/logMessage lines and a
// window/showMessage when a turn ends with its status, its answer and where
// the whole conversation is (beginTurn announces the start to clients
// without progress). It belongs to the outbox goroutine.
type plain struct {
	s     *server
	turns map[turnKey]*plainTurn
	// paused: the session's queue waits for the user; queued: the turns
	// queueChanged listed lately, announced when they start (queue.go).
	paused map[string]bool
	queued map[turnKey]bool
}

type plainTurn struct {
	line         strings.Builder // streamed text not yet logged
	tools, files int
}

func newPlain(s *server) *plain {
	return &plain{s: s, turns: make(map[turnKey]*plainTurn)}
}

func (p *plain) event(ctx context.Context, ev event.Event) {
	if p.queueEvent(ctx, ev) || p.terminalEvent(ctx, ev) {
		return
	}
	key := turnKey{ev.SessionID, ev.TurnID}
	t := p.turns[key]
	if t == nil {
		t = &plainTurn{}
		p.turns[key] = t
	}
	switch e := ev.Payload.(type) {
	case event.MessageDelta:
		t.line.WriteString(e.Delta)
		text := t.line.String()
		if i := strings.LastIndexByte(text, '\n'); i >= 0 {
			p.log(ctx, text[:i])
			t.line.Reset()
			t.line.WriteString(text[i+1:])
		}
	case event.Message:
		p.log(ctx, t.line.String())
		t.line.Reset()
	case event.ToolCall:
		t.tools++
		title := e.Title
		if title == "" {
			title = e.Tool
		}
		p.log(ctx, "Agent: "+textcut.FirstLine(title, 0))
	case event.FileChange:
		if e.Status == event.ChangeApplied {
			t.files += len(e.Changes)
		}
	case event.TurnCompleted:
		delete(p.turns, key)
		msg := p.final(ev.SessionID, t, e)
		if e.Status == event.StatusInterrupted {
			msg += p.s.stillRunning(ev.SessionID)
		}
		p.s.showMessage(ctx, protocol.MessageTypeInfo, msg)
	}
}

// log sends streamed text to the client's log.
func (p *plain) log(ctx context.Context, text string) {
	if strings.TrimSpace(text) == "" {
		return
	}
	if err := p.s.client.LogMessage(ctx, &protocol.LogMessageParams{Type: protocol.MessageTypeLog, Message: textcut.Visible(text)}); err != nil {
		p.s.log.Debug("log message not sent", "err", err)
	}
}

// final is the message that ends a turn: status and summary, the answer
// (shortened when a message box could not hold it) and the transcript.
func (p *plain) final(session string, t *plainTurn, e event.TurnCompleted) string {
	var b strings.Builder
	b.WriteString("Agent: " + summary(t.tools, t.files, e))
	answer, cut := shorten(strings.TrimSpace(e.LastMessage))
	if answer != "" {
		b.WriteString("\n" + answer)
	}
	path := p.s.out.transcripts.path(session)
	switch {
	case path != "" && cut:
		b.WriteString("\n… the whole answer and conversation: " + path)
	case path != "":
		b.WriteString("\nConversation: " + path)
	case cut:
		b.WriteString("\n… (shortened)")
	}
	return b.String()
}

// shorten cuts text to what a message box holds, at a line end when it
// can.
func shorten(text string) (string, bool) {
	lines := strings.Split(text, "\n")
	cut := false
	if len(lines) > maxNoticeLines {
		lines, cut = lines[:maxNoticeLines], true
	}
	text = strings.Join(lines, "\n")
	if r := []rune(text); len(r) > maxNoticeRunes {
		text, cut = string(r[:maxNoticeRunes]), true
		if i := strings.LastIndexByte(text, '\n'); i > maxNoticeRunes/2 {
			text = text[:i]
		}
	}
	return strings.TrimRight(text, " \n"), cut
}

// showMessage sends window/showMessage, logging failure: the editor may be
// gone. The message quotes the model, the repository or a server (an
// answer, an error, a file name): its control and bidi characters are
// escaped, whatever the editor does with them.
func (s *server) showMessage(ctx context.Context, typ protocol.MessageType, message string) {
	if err := s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: typ, Message: textcut.Visible(message)}); err != nil {
		s.log.Debug("message not sent", "err", err)
	}
}

// notice is a showMessage for clients that did not opt into agent/event:
// the others show what happened their own way.
func (s *server) notice(ctx context.Context, typ protocol.MessageType, message string) {
	if !s.capabilities().AgentEvents {
		s.showMessage(ctx, typ, message)
	}
}
