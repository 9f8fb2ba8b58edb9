package lsp

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
)

// progress reports each turn as LSP work done progress (protocol section
// 4): a token per turn, begin with the prompt's first line, a report per
// tool call and phase, end with a summary. Everything but the token table
// belongs to the outbox goroutine.
type progress struct {
	s     *server
	turns map[turnKey]*turnProgress

	mu     sync.Mutex
	tokens map[string]turnKey // for window/workDoneProgress/cancel
}

type turnKey struct{ session, turn string }

// turnProgress is one turn's progress. Until the editor has accepted the
// token, reports wait in pending; if it refuses, or does not answer within
// Options.ProgressTimeout, the turn goes without progress. Either way the
// turn's events are not held up.
type turnProgress struct {
	token   string
	active  bool  // the editor accepted the token
	pending []any // values waiting for the editor's answer
	cancel  context.CancelFunc
	ended   bool
	phase   string // what the last report said the turn is doing
	title   string // the last tool call's
	tools   int
	files   int
	usage   *event.Usage // the turn's last usage event
}

// created is the editor's answer to window/workDoneProgress/create.
type created struct {
	key turnKey
	err error
}

func newProgress(s *server) *progress {
	return &progress{s: s, turns: make(map[turnKey]*turnProgress), tokens: make(map[string]turnKey)}
}

// event updates a turn's progress with one of its events.
func (p *progress) event(ctx context.Context, ev event.Event) {
	key := turnKey{ev.SessionID, ev.TurnID}
	if started, ok := ev.Payload.(event.TurnStarted); ok {
		p.start(ctx, key, started.Prompt)
		return
	}
	tp := p.turns[key]
	if tp == nil {
		return
	}
	switch e := ev.Payload.(type) {
	case event.ToolCall:
		tp.tools++
		tp.phase = ""
		title := e.Title
		if title == "" {
			title = e.Tool
		}
		tp.title = title
		p.report(ctx, tp, title)
	case event.ToolProgress:
		// An MCP server's progress, four a second at most.
		p.report(ctx, tp, textcut.FirstLine(tp.title, 100)+": "+e.Text())
	case event.FileChange:
		if e.Status == event.ChangeApplied {
			tp.files += len(e.Changes)
		}
	case event.ReasoningDelta:
		p.phase(ctx, tp, "Thinking")
	case event.MessageDelta:
		p.phase(ctx, tp, "Writing the answer")
	case event.Plan:
		for _, step := range e.Steps {
			if step.Status == event.StepInProgress {
				p.phase(ctx, tp, "Plan: "+step.Step)
				break
			}
		}
	case event.Retry:
		p.report(ctx, tp, fmt.Sprintf("Retrying (attempt %d): %s", e.Attempt, textcut.FirstLine(e.Message, 100)))
	case event.Usage:
		tp.usage = &e
	case event.WebSearch:
		if e.Query == "" {
			p.report(ctx, tp, "Searching the web")
		} else {
			p.report(ctx, tp, "Web search: "+textcut.FirstLine(e.Query, 100))
		}
	case event.Compacted:
		p.report(ctx, tp, "Compacted the conversation")
	case event.TerminalStarted:
		p.report(ctx, tp, "Command session "+e.TerminalID+" started: "+textcut.FirstLine(commandLine(e.Command), 100))
	case event.TerminalExited:
		p.report(ctx, tp, fmt.Sprintf("Command session %s ended (exit code %d)", e.TerminalID, e.ExitCode))
	case event.TurnCompleted:
		msg := summary(tp.tools, tp.files, e)
		if tp.usage != nil {
			if line := tp.usage.Line(); line != "" {
				msg += " · " + line
			}
		}
		p.send(ctx, tp, &protocol.WorkDoneProgressEnd{Kind: "end", Message: ptr(textcut.VisibleLine(msg))})
		// Before the editor accepted the token, everything waits for its
		// answer (or the timeout): a quick turn then shows its whole
		// progress at once rather than none.
		tp.ended = true
		if tp.active {
			p.forget(key)
		}
	}
}

// start asks the editor for a token, off this goroutine so that events keep
// flowing while it answers.
func (p *progress) start(ctx context.Context, key turnKey, prompt string) {
	if _, dup := p.turns[key]; dup {
		return
	}
	token := "agent-ls/" + key.session + "/" + key.turn
	cctx, cancel := context.WithTimeout(ctx, p.s.opts.ProgressTimeout)
	tp := &turnProgress{token: token, cancel: cancel}
	tp.pending = append(tp.pending, &protocol.WorkDoneProgressBegin{
		Kind:        "begin",
		Title:       "Agent",
		Message:     ptr(textcut.VisibleLine(textcut.FirstLine(prompt, 100))),
		Cancellable: ptr(true),
	})
	p.turns[key] = tp
	p.mu.Lock()
	p.tokens[token] = key
	p.mu.Unlock()
	go func() {
		err := p.s.client.WorkDoneProgressCreate(cctx, &protocol.WorkDoneProgressCreateParams{Token: protocol.String(token)})
		cancel()
		p.s.out.push(outItem{created: &created{key: key, err: err}})
	}()
}

// created applies the editor's answer to a token request.
func (p *progress) created(ctx context.Context, c created) {
	tp := p.turns[c.key]
	if tp == nil {
		return
	}
	if c.err != nil {
		p.s.log.Debug("turn goes without progress", "token", tp.token, "err", c.err)
		p.forget(c.key)
		return
	}
	tp.active = true
	for _, v := range tp.pending {
		p.send(ctx, tp, v)
	}
	tp.pending = nil
	if tp.ended {
		p.forget(c.key)
	}
}

// report sends one line of progress. It quotes the model (a tool call's
// title, a plan step) or a server's error: its control and bidi
// characters are escaped, and so are its newlines.
func (p *progress) report(ctx context.Context, tp *turnProgress, message string) {
	p.send(ctx, tp, &protocol.WorkDoneProgressReport{Kind: "report", Message: ptr(textcut.VisibleLine(message))})
}

// phase reports what the turn is doing when that changed.
func (p *progress) phase(ctx context.Context, tp *turnProgress, phase string) {
	if tp.phase == phase {
		return
	}
	tp.phase = phase
	p.report(ctx, tp, phase)
}

func (p *progress) send(ctx context.Context, tp *turnProgress, value any) {
	if !tp.active {
		tp.pending = append(tp.pending, value)
		return
	}
	raw, err := protocol.Marshal(value)
	if err != nil {
		p.s.log.Error("progress not sent", "err", err)
		return
	}
	if err := p.s.client.Progress(ctx, &protocol.ProgressParams{Token: protocol.String(tp.token), Value: raw}); err != nil {
		p.s.log.Debug("progress not sent", "err", err)
	}
}

func (p *progress) forget(key turnKey) {
	if tp := p.turns[key]; tp != nil {
		tp.cancel()
		p.mu.Lock()
		delete(p.tokens, tp.token)
		p.mu.Unlock()
	}
	delete(p.turns, key)
}

// WorkDoneProgressCancel interrupts the turn whose progress the user
// cancelled.
func (s *server) WorkDoneProgressCancel(_ context.Context, params *protocol.WorkDoneProgressCancelParams) error {
	var token string
	switch t := params.Token.(type) {
	case protocol.String:
		token = string(t)
	case protocol.Integer:
		token = fmt.Sprint(int32(t))
	}
	p := s.out.progress
	p.mu.Lock()
	key, ok := p.tokens[token]
	p.mu.Unlock()
	if !ok {
		return nil // a turn that already ended, or not ours
	}
	a, err := s.theAgent()
	if err != nil {
		return nil
	}
	s.log.Info("progress cancelled: interrupting the turn", "session", key.session, "turn", key.turn)
	if err := a.Interrupt(key.session, key.turn); err != nil && !errors.Is(err, agent.ErrNoTurn) {
		s.log.Warn("interrupt after progress cancel", "err", err)
	}
	return nil
}

// summary is the one line that ends a turn's progress: its status, and
// how many tool calls it made and files it changed.
func summary(tools, files int, e event.TurnCompleted) string {
	switch e.Status {
	case event.StatusInterrupted:
		return "Interrupted"
	case event.StatusFailed:
		if e.Error != "" {
			return "Failed: " + textcut.FirstLine(e.Error, 100)
		}
		return "Failed"
	}
	var parts []string
	if tools > 0 {
		parts = append(parts, plural(tools, "tool call"))
	}
	if files > 0 {
		parts = append(parts, plural(files, "file")+" changed")
	}
	if len(parts) == 0 {
		return "Done"
	}
	return "Done (" + strings.Join(parts, ", ") + ")"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func ptr[T any](v T) *T { return &v }
