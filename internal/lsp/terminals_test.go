package lsp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

// fakeTerminals are the fake agent's command sessions.
type fakeTerminals struct {
	list    map[string][]agent.TerminalInfo // session → its terminals
	written []string
	closed  []string // sessions CloseTerminals was asked for
}

func (a *fakeAgent) terms() *fakeTerminals {
	if a.terminals == nil {
		a.terminals = &fakeTerminals{list: map[string][]agent.TerminalInfo{}}
	}
	return a.terminals
}

// startTerminal makes a running command session, reported as exec_command
// does.
func (a *fakeAgent) startTerminal(session, turn string, id int, cmd string) {
	a.mu.Lock()
	ft := a.terms()
	ft.list[session] = append(ft.list[session], agent.TerminalInfo{ID: id, Command: []string{"bash", "-lc", cmd}, Cwd: "/w", Running: true, Sandboxed: true})
	a.mu.Unlock()
	a.emit(session, turn, event.TerminalStarted{TerminalID: fmt.Sprint(id), CallID: "c1", Command: []string{"bash", "-lc", cmd}, Cwd: "/w"})
}

func (a *fakeAgent) ListTerminals(sessionID string) ([]agent.TerminalInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.sessions[sessionID]; !ok {
		return nil, fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	return slices.Clone(a.terms().list[sessionID]), nil
}

// find returns the index of terminal id of the session, or the error
// the agent answers.
func (a *fakeAgent) find(sessionID string, id int) (int, error) {
	if _, ok := a.sessions[sessionID]; !ok {
		return 0, fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	for i, ti := range a.terms().list[sessionID] {
		if ti.ID == id {
			if !ti.Running {
				return 0, fmt.Errorf("%w: %d", agent.ErrTerminalEnded, id)
			}
			return i, nil
		}
	}
	return 0, fmt.Errorf("%w: %d", agent.ErrUnknownTerminal, id)
}

func (a *fakeAgent) KillTerminal(sessionID string, id int) error {
	a.mu.Lock()
	i, err := a.find(sessionID, id)
	if err != nil {
		a.mu.Unlock()
		return err
	}
	ti := &a.terms().list[sessionID][i]
	ti.Running, ti.ExitCode, ti.Killed = false, 143, "at the user's request"
	a.mu.Unlock()
	a.emit(sessionID, "", event.TerminalExited{TerminalID: fmt.Sprint(id), ExitCode: 143})
	return nil
}

func (a *fakeAgent) WriteTerminal(sessionID string, id int, data string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := a.find(sessionID, id); err != nil {
		return err
	}
	a.terms().written = append(a.terms().written, fmt.Sprintf("%s/%d:%q", sessionID, id, data))
	return nil
}

func (a *fakeAgent) StopTerminals(sessionID string) ([]int, error) {
	a.mu.Lock()
	if _, ok := a.sessions[sessionID]; !ok {
		a.mu.Unlock()
		return nil, fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	var ids []int
	for _, ti := range a.terms().list[sessionID] {
		if ti.Running {
			ids = append(ids, ti.ID)
		}
	}
	a.mu.Unlock()
	for _, id := range ids {
		if err := a.KillTerminal(sessionID, id); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

func (a *fakeAgent) CloseTerminals(sessionID string) ([]int, error) {
	a.mu.Lock()
	a.terms().closed = append(a.terms().closed, sessionID)
	a.mu.Unlock()
	return a.StopTerminals(sessionID)
}

// TestTerminalMethods: agent/listTerminals, agent/writeTerminal and
// agent/killTerminal reach the agent, the kill's terminalExited comes
// before its answer, and their errors map to LSP codes.
func TestTerminalMethods(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	turn := h.startTurn(map[string]any{"prompt": "serve"})
	sid := turn.SessionID
	h.agent.startTerminal(sid, turn.TurnID, 1000, "python3 -m http.server")

	var list listTerminalsResult
	if err := h.ed.Request(h.ctx, methodListTerminals, map[string]any{"sessionId": sid}, &list); err != nil {
		t.Fatal(err)
	}
	want := terminalEntry{TerminalID: "1000", Command: []string{"bash", "-lc", "python3 -m http.server"}, Cwd: string(uri.File("/w")), Running: true}
	if len(list.Terminals) != 1 || fmt.Sprint(list.Terminals[0]) != fmt.Sprint(want) {
		t.Fatalf("listed %+v, want %+v", list.Terminals, want)
	}
	var empty map[string]any
	if err := h.ed.Request(h.ctx, methodWriteTerminal, map[string]any{"sessionId": sid, "terminalId": "1000", "data": "y\n"}, &empty); err != nil {
		t.Fatal(err)
	}
	if got := h.agent.terms().written; len(got) != 1 || got[0] != sid+`/1000:"y\n"` {
		t.Errorf("written %q", got)
	}
	if err := h.ed.Request(h.ctx, methodKillTerminal, map[string]any{"sessionId": sid, "terminalId": "1000"}, &empty); err != nil {
		t.Fatal(err)
	}
	exited := false
	for _, ev := range h.ed.Events() {
		if ev.Type == "terminalExited" {
			exited = true
		}
	}
	if !exited {
		t.Error("the answer to agent/killTerminal came before terminalExited")
	}
	if err := h.ed.Request(h.ctx, methodListTerminals, map[string]any{"sessionId": sid}, &list); err != nil {
		t.Fatal(err)
	}
	if e := list.Terminals[0]; e.Running || e.ExitCode == nil || *e.ExitCode != 143 || e.Killed == "" {
		t.Errorf("after the kill: %+v", e)
	}

	bad := []struct {
		method string
		params map[string]any
		code   int64
		text   string
	}{
		{methodListTerminals, map[string]any{}, int64(jsonrpc2.InvalidParams), "sessionId is required"},
		{methodListTerminals, map[string]any{"sessionId": "nope"}, int64(jsonrpc2.InvalidParams), "unknown session"},
		{methodKillTerminal, map[string]any{"sessionId": sid}, int64(jsonrpc2.InvalidParams), "terminalId is required"},
		{methodKillTerminal, map[string]any{"sessionId": sid, "terminalId": 1000}, int64(jsonrpc2.InvalidParams), "terminalId must be a string"},
		{methodKillTerminal, map[string]any{"sessionId": sid, "terminalId": "01000"}, int64(jsonrpc2.InvalidParams), "not a command session's id"},
		{methodKillTerminal, map[string]any{"sessionId": sid, "terminalId": "1001"}, int64(jsonrpc2.InvalidParams), "no such command session"},
		{methodKillTerminal, map[string]any{"sessionId": sid, "terminalId": "1000"}, int64(codeRequestFailed), "has ended"},
		{methodWriteTerminal, map[string]any{"sessionId": sid, "terminalId": "1000", "data": "x"}, int64(codeRequestFailed), "has ended"},
		{methodWriteTerminal, map[string]any{"sessionId": sid, "terminalId": "1000"}, int64(jsonrpc2.InvalidParams), "data is required"},
		{methodWriteTerminal, map[string]any{"sessionId": "nope", "terminalId": "1000", "data": "x"}, int64(jsonrpc2.InvalidParams), "unknown session"},
	}
	for _, c := range bad {
		err := h.ed.Request(h.ctx, c.method, c.params, &empty)
		if msg := rpcError(t, err, c.code); !strings.Contains(msg, c.text) {
			t.Errorf("%s %v: %q, want it to say %q", c.method, c.params, msg, c.text)
		}
	}
}

// TestStopTerminalsForPlainClients: a plain client sees command sessions
// start and end in its log, is offered Agent: Stop terminals while one
// runs, and agent.stopTerminals with no argument stops those of every
// session; an interrupted turn's end names the ones that run on.
func TestStopTerminalsForPlainClients(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	turn := h.startTurn(map[string]any{"prompt": "serve"})
	sid := turn.SessionID
	docURI := string(uri.File("/ws/main.go"))
	actionParams := map[string]any{"textDocument": map[string]string{"uri": docURI},
		"range": map[string]any{"start": map[string]int{"line": 0}, "end": map[string]int{"line": 1}}, "context": map[string]any{"diagnostics": []any{}}}
	if slices.Contains(titles(codeActions(t, h, actionParams)), "Agent: Stop terminals") {
		t.Fatal("Stop terminals offered with no command session")
	}
	h.agent.startTerminal(sid, turn.TurnID, 1000, "python3 -m http.server")
	h.agent.startTerminal(sid, turn.TurnID, 1001, "npm run watch")
	waitMessage(t, h, protocol.MessageTypeLog, "Agent: command session 1001 started: npm run watch")
	h.agent.complete(sid, turn.TurnID, event.StatusInterrupted)
	waitMessage(t, h, protocol.MessageTypeInfo, "Still running: command sessions 1000, 1001 (an interrupt stops the turn, not them")
	if !slices.Contains(titles(codeActions(t, h, actionParams)), "Agent: Stop terminals") {
		t.Fatal("Stop terminals not offered while command sessions run")
	}

	var res stopTerminalsResult
	if err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": commandStopTerminals}, &res); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(res.Stopped) != fmt.Sprint([]stoppedTerminal{{sid, "1000"}, {sid, "1001"}}) {
		t.Errorf("stopped %+v", res.Stopped)
	}
	waitMessage(t, h, protocol.MessageTypeLog, "Agent: command session 1001 ended (exit code 143): agent-ls killed it at the user's request")
	waitMessage(t, h, protocol.MessageTypeInfo, "Agent: stopped 2 command sessions")
	if slices.Contains(titles(codeActions(t, h, actionParams)), "Agent: Stop terminals") {
		t.Error("Stop terminals still offered after they stopped")
	}
}

// TestNewSessionClosesTheTerminalsOfTheOld: agent.newSession and
// agent/newSession stop the command sessions of the session they replace
// as current, and only of that one.
func TestNewSessionClosesTheTerminalsOfTheOld(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	var first, second sessionResult
	if err := h.ed.Request(h.ctx, methodNewSession, nil, &first); err != nil {
		t.Fatal(err)
	}
	h.agent.startTerminal(first.SessionID, "", 1000, "sleep 1000")
	if err := h.ed.Request(h.ctx, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": commandNewSession}, &second); err != nil {
		t.Fatal(err)
	}
	h.agent.startTerminal(second.SessionID, "", 1000, "sleep 1000")
	var third sessionResult
	if err := h.ed.Request(h.ctx, methodNewSession, map[string]any{}, &third); err != nil {
		t.Fatal(err)
	}
	if got := h.agent.terms().closed; fmt.Sprint(got) != fmt.Sprint([]string{first.SessionID, second.SessionID}) {
		t.Errorf("closed the terminals of %q, want the two replaced sessions", got)
	}
	for _, sid := range []string{first.SessionID, second.SessionID} {
		list, _ := h.agent.ListTerminals(sid)
		if len(list) != 1 || list[0].Running {
			t.Errorf("session %s: %+v, want its terminal ended", sid, list)
		}
	}
}

// TestTerminalsInProgress: a turn's progress reports the command
// sessions it starts and that end while it runs.
func TestTerminalsInProgress(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Progress: true})
	turn := h.startTurn(map[string]any{"prompt": "serve"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnStarted{Prompt: "serve"})
	h.agent.startTerminal(turn.SessionID, turn.TurnID, 1000, "make watch")
	h.agent.emit(turn.SessionID, turn.TurnID, event.TerminalExited{TerminalID: "1000", ExitCode: 2})
	h.agent.complete(turn.SessionID, turn.TurnID, event.StatusCompleted)
	if _, err := h.ed.WaitProgress(h.ctx, func(p editor.Progress) bool { return p.Kind == "end" }); err != nil {
		t.Fatal(err)
	}
	var reports []string
	for _, p := range h.ed.Progress() {
		if p.Kind == "report" {
			reports = append(reports, p.Message)
		}
	}
	want := []string{"Command session 1000 started: make watch", "Command session 1000 ended (exit code 2)"}
	if strings.Join(reports, "|") != strings.Join(want, "|") {
		t.Errorf("reports %q, want %q", reports, want)
	}
}

// TestTerminalCommandShownVisibly: a command line with control
// characters (an escape sequence that retitles the terminal, a carriage
// return that hides what comes before it) reaches the log and the
// progress with them escaped, never raw.
func TestTerminalCommandShownVisibly(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Progress: true})
	turn := h.startTurn(map[string]any{"prompt": "serve"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnStarted{Prompt: "serve"})
	h.agent.startTerminal(turn.SessionID, turn.TurnID, 1000, "rm -rf ~ \x1b]0;safe\a\r  echo safe")
	logged := waitMessage(t, h, protocol.MessageTypeLog, "Agent: command session 1000 started: rm -rf ~ ")
	h.agent.complete(turn.SessionID, turn.TurnID, event.StatusCompleted)
	if _, err := h.ed.WaitProgress(h.ctx, func(p editor.Progress) bool { return p.Kind == "end" }); err != nil {
		t.Fatal(err)
	}
	shown := []string{logged}
	for _, p := range h.ed.Progress() {
		if strings.Contains(p.Message, "Command session 1000 started") {
			shown = append(shown, p.Message)
		}
	}
	if len(shown) != 2 {
		t.Fatalf("shown %q", shown)
	}
	for _, s := range shown {
		if strings.ContainsAny(s, "\x1b\a\r") || !strings.Contains(s, `\x1b]0;safe\a\r  echo safe`) {
			t.Errorf("shown %q", s)
		}
	}
}
