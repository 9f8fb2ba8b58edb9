package lsp

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// The methods of the command sessions exec_command starts, the
// terminals (protocol section 3.1).
const (
	methodListTerminals = "agent/listTerminals"
	methodKillTerminal  = "agent/killTerminal"
	methodWriteTerminal = "agent/writeTerminal"
)

// Terminals is the part of the agent that lets the user see and act on
// the command sessions. agent.Manager implements it.
type Terminals interface {
	ListTerminals(sessionID string) ([]agent.TerminalInfo, error)
	// KillTerminal returns once the command ended and its
	// terminalExited was sent.
	KillTerminal(sessionID string, id int) error
	// WriteTerminal types data, as the user, without asking anyone.
	WriteTerminal(sessionID string, id int, data string) error
	// StopTerminals kills every running command session of the session.
	StopTerminals(sessionID string) ([]int, error)
	// CloseTerminals does so for a session the user left for a new one.
	CloseTerminals(sessionID string) ([]int, error)
}

type terminalParams struct {
	SessionID  string  `json:"sessionId"`
	TerminalID string  `json:"terminalId"`
	Data       *string `json:"data"`
}

type listTerminalsResult struct {
	Terminals []terminalEntry `json:"terminals"`
}

// terminalEntry is a command session as agent/listTerminals shows it.
type terminalEntry struct {
	TerminalID string   `json:"terminalId"`
	Command    []string `json:"command"`
	Cwd        string   `json:"cwd"`
	TTY        bool     `json:"tty"`
	Running    bool     `json:"running"`
	ExitCode   *int     `json:"exitCode,omitempty"`
	// Killed says why agent-ls ended it, when it did.
	Killed string `json:"killed,omitempty"`
}

// terminalMethod answers agent/listTerminals, agent/killTerminal and
// agent/writeTerminal.
func (s *server) terminalMethod(ctx context.Context, method string, params []byte) (any, error) {
	var p terminalParams
	if err := decodeParams(method, params, &p); err != nil {
		return nil, err
	}
	if p.SessionID == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: sessionId is required", method)
	}
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	if method == methodListTerminals {
		list, err := a.ListTerminals(p.SessionID)
		if err != nil {
			return nil, terminalError(err)
		}
		res := listTerminalsResult{Terminals: make([]terminalEntry, 0, len(list))}
		for _, ti := range list {
			res.Terminals = append(res.Terminals, entryOf(ti))
		}
		return res, nil
	}
	id, err := terminalNumber(method, p.TerminalID)
	if err != nil {
		return nil, err
	}
	if method == methodKillTerminal {
		if err := a.KillTerminal(p.SessionID, id); err != nil {
			return nil, terminalError(err)
		}
		// The terminalExited goes out before the answer (see beginTurn).
		if err := s.out.drained(ctx); err != nil {
			return nil, protocol.ErrRequestCancelled
		}
		return struct{}{}, nil
	}
	if p.Data == nil || *p.Data == "" {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: data is required and must not be empty", method)
	}
	if err := a.WriteTerminal(p.SessionID, id, *p.Data); err != nil {
		return nil, terminalError(err)
	}
	return struct{}{}, nil
}

// terminalNumber is the session_id a terminalId names.
func terminalNumber(method, terminalID string) (int, error) {
	if terminalID == "" {
		return 0, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: terminalId is required", method)
	}
	id, err := strconv.Atoi(terminalID)
	if err != nil || id < 0 || strconv.Itoa(id) != terminalID {
		return 0, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "%s: terminalId %q is not a command session's id (a decimal number as a string)", method, terminalID)
	}
	return id, nil
}

// entryOf is ti on the wire.
func entryOf(ti agent.TerminalInfo) terminalEntry {
	e := terminalEntry{TerminalID: strconv.Itoa(ti.ID), Command: ti.Command, Cwd: string(uri.File(ti.Cwd)), TTY: ti.TTY, Running: ti.Running, Killed: ti.Killed}
	if e.Command == nil {
		e.Command = []string{}
	}
	if !ti.Running {
		e.ExitCode = ptr(ti.ExitCode)
	}
	return e
}

// terminalError maps the terminal methods' errors: an unknown terminal
// is a bad parameter (as an unknown session), one that ended a request
// that cannot be carried out.
func terminalError(err error) error {
	switch {
	case errors.Is(err, agent.ErrUnknownTerminal):
		return jsonrpc2.NewError(jsonrpc2.InvalidParams, err.Error())
	case errors.Is(err, agent.ErrTerminalEnded):
		return jsonrpc2.NewError(codeRequestFailed, err.Error())
	}
	return agentError(err)
}

// stopTerminalsArgs is the argument of agent.stopTerminals.
type stopTerminalsArgs struct {
	SessionID string `json:"sessionId"`
}

type stopTerminalsResult struct {
	Stopped []stoppedTerminal `json:"stopped"`
}

type stoppedTerminal struct {
	SessionID  string `json:"sessionId"`
	TerminalID string `json:"terminalId"`
}

// stopTerminals runs agent.stopTerminals: the command sessions of the
// named session, or of every session of this connection that has one
// running. A client without agent/event is told what stopped.
func (s *server) stopTerminals(ctx context.Context, args stopTerminalsArgs) (any, error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	sessions := []string{args.SessionID}
	if args.SessionID == "" {
		sessions = s.terms.sessions()
	}
	res := stopTerminalsResult{Stopped: []stoppedTerminal{}}
	for _, id := range sessions {
		ids, err := a.StopTerminals(id)
		if err != nil {
			if args.SessionID == "" && errors.Is(err, agent.ErrUnknownSession) {
				continue
			}
			return nil, agentError(err)
		}
		for _, n := range ids {
			res.Stopped = append(res.Stopped, stoppedTerminal{SessionID: id, TerminalID: strconv.Itoa(n)})
		}
	}
	if err := s.out.drained(ctx); err != nil {
		return nil, protocol.ErrRequestCancelled
	}
	msg := "Agent: no command session was running"
	if n := len(res.Stopped); n > 0 {
		msg = fmt.Sprintf("Agent: stopped %s", plural(n, "command session"))
	}
	s.notice(ctx, protocol.MessageTypeInfo, msg)
	return res, nil
}

// closeReplaced kills the command sessions of the session a new one
// replaces as current (agent.newSession, agent/newSession): it is closed
// for the user, though it stays to be resumed.
func (s *server) closeReplaced(a Agent, old, current string) {
	if old == "" || old == current {
		return
	}
	if ids, err := a.CloseTerminals(old); err != nil && !errors.Is(err, agent.ErrUnknownSession) {
		s.log.Warn("the command sessions of the previous conversation were not stopped", "session", old, "err", err)
	} else if len(ids) > 0 {
		s.log.Info("stopped the command sessions of the previous conversation", "session", old, "terminals", len(ids))
	}
}

// terminalTracker follows which command sessions run, from their
// events: for the Stop terminals code action and the plain client's
// messages.
type terminalTracker struct {
	mu      sync.Mutex
	running map[string]map[string]string // session → terminal → command line
}

func newTerminalTracker() *terminalTracker {
	return &terminalTracker{running: make(map[string]map[string]string)}
}

// observe follows one event.
func (tt *terminalTracker) observe(ev event.Event) {
	switch e := ev.Payload.(type) {
	case event.TerminalStarted:
		tt.mu.Lock()
		if tt.running[ev.SessionID] == nil {
			tt.running[ev.SessionID] = make(map[string]string)
		}
		tt.running[ev.SessionID][e.TerminalID] = commandLine(e.Command)
		tt.mu.Unlock()
	case event.TerminalExited:
		tt.mu.Lock()
		delete(tt.running[ev.SessionID], e.TerminalID)
		if len(tt.running[ev.SessionID]) == 0 {
			delete(tt.running, ev.SessionID)
		}
		tt.mu.Unlock()
	}
}

// sessions returns the sessions with a running command session.
func (tt *terminalTracker) sessions() []string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	out := make([]string, 0, len(tt.running))
	for id := range tt.running {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// ids returns the running command sessions of session, in order.
func (tt *terminalTracker) ids(session string) []string {
	tt.mu.Lock()
	defer tt.mu.Unlock()
	out := make([]string, 0, len(tt.running[session]))
	for id := range tt.running[session] {
		out = append(out, id)
	}
	slices.SortFunc(out, func(a, b string) int {
		x, _ := strconv.Atoi(a)
		y, _ := strconv.Atoi(b)
		return x - y
	})
	return out
}

// commandLine is a command session's command as the user reads it: the
// model's command line, without the shell that runs it.
func commandLine(argv []string) string {
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}

// terminalEvent shows a command session's start and end to a client
// without agent/event, as log lines (its output is in the tool results
// and the transcript). It reports whether ev was one of them.
func (p *plain) terminalEvent(ctx context.Context, ev event.Event) bool {
	switch e := ev.Payload.(type) {
	case event.TerminalStarted:
		p.log(ctx, "Agent: command session "+e.TerminalID+" started: "+textcut.FirstLine(commandLine(e.Command), 200))
	case event.TerminalExited:
		p.log(ctx, "Agent: "+p.s.terminalEnd(ev.SessionID, e))
	case event.TerminalOutput:
	default:
		return false
	}
	return true
}

// terminalEnd says how a command session ended: its exit code, and why
// agent-ls killed it when it did.
func (s *server) terminalEnd(session string, e event.TerminalExited) string {
	msg := fmt.Sprintf("command session %s ended (exit code %d)", e.TerminalID, e.ExitCode)
	a, err := s.theAgent()
	if err != nil {
		return msg
	}
	list, err := a.ListTerminals(session)
	if err != nil {
		return msg
	}
	for _, ti := range list {
		if strconv.Itoa(ti.ID) == e.TerminalID && ti.Killed != "" {
			return msg + ": agent-ls killed it " + ti.Killed
		}
	}
	return msg
}

// stillRunning is what the end of an interrupted turn adds for the
// session's command sessions that run on: an interrupt stops the turn,
// not them.
func (s *server) stillRunning(session string) string {
	ids := s.terms.ids(session)
	if len(ids) == 0 {
		return ""
	}
	noun := "command session"
	if len(ids) > 1 {
		noun += "s"
	}
	return fmt.Sprintf("\nStill running: %s %s (an interrupt stops the turn, not them; the code action “Agent: Stop terminals” ends them)",
		noun, strings.Join(ids, ", "))
}
