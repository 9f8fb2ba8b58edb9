package lsp

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

// fakeQueue is what the fake agent keeps of the queue methods.
type fakeQueue struct {
	items   map[string][]string // session → queued turn ids
	calls   []string
	cleared []string
	paused  map[string]bool
}

func (a *fakeAgent) queueState() *fakeQueue {
	if a.queue == nil {
		a.queue = &fakeQueue{items: map[string][]string{}}
	}
	return a.queue
}

// Submit queues behind a running turn, as agent.Manager does.
func (a *fakeAgent) Submit(sessionID string, in agent.TurnInput) (agent.Submitted, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.running[sessionID] == "" {
		return agent.Submitted{}, fmt.Errorf("the fake starts turns through StartTurn only")
	}
	if in.Prompt == "queue full" {
		return agent.Submitted{}, agent.ErrQueueFull
	}
	q := a.queueState()
	a.nextID++
	id := fmt.Sprintf("t%d", a.nextID)
	q.items[sessionID] = append(q.items[sessionID], id)
	a.turns = append(a.turns, in)
	return agent.Submitted{TurnID: id, Queued: true, Waiting: len(q.items[sessionID])}, nil
}

func (a *fakeAgent) record(call string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.queueState()
	q.calls = append(q.calls, call)
	if strings.Contains(call, "missing") {
		return fmt.Errorf("%w: turn missing", agent.ErrNotQueued)
	}
	return nil
}

func (a *fakeAgent) UpdateQueued(sessionID, turnID, prompt string) error {
	return a.record("update " + sessionID + " " + turnID + " " + prompt)
}

func (a *fakeAgent) RemoveQueued(sessionID, turnID string) error {
	return a.record("remove " + sessionID + " " + turnID)
}

func (a *fakeAgent) ClearQueue(sessionID string) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.queueState()
	q.cleared = append(q.cleared, sessionID)
	return nil
}

func (a *fakeAgent) ResumeQueue(sessionID string) (string, error) {
	if err := a.record("resume " + sessionID); err != nil {
		return "", err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	delete(a.queueState().paused, sessionID)
	return "", nil
}

func (a *fakeAgent) QueueOf(sessionID string) ([]event.QueuedPrompt, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	q := a.queueState()
	var items []event.QueuedPrompt
	for _, id := range q.items[sessionID] {
		items = append(items, event.QueuedPrompt{TurnID: id})
	}
	return items, q.paused[sessionID], nil
}

func (a *fakeAgent) Steer(sessionID string, in agent.TurnInput, queuedTurnID string) (agent.SteerResult, error) {
	if err := a.record("steer " + sessionID + " " + in.Prompt + queuedTurnID); err != nil {
		return agent.SteerResult{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(in.Prompt) > agent.MaxQueuedPromptBytes {
		return agent.SteerResult{}, agent.ErrPromptTooLong
	}
	return agent.SteerResult{TurnID: a.running[sessionID]}, nil
}

func (a *fakeAgent) queueCalls() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]string(nil), a.queueState().calls...)
}

// TestStartTurnWhileOneRunsQueues: a second agent/startTurn answers at
// once with queued true and its own turn id; a plain client is told that
// it waits, before the answer.
func TestStartTurnWhileOneRunsQueues(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	first := h.startTurn(map[string]any{"prompt": "first"})
	if first.Queued {
		t.Fatal("the first prompt was queued")
	}
	second := h.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "second\nmore"})
	if !second.Queued || second.TurnID == "" || second.TurnID == first.TurnID || second.SessionID != first.SessionID {
		t.Fatalf("second answer %+v, want queued with its own turn id (first %+v)", second, first)
	}
	found := false
	for _, m := range h.ed.Messages() {
		if m.Message == "Agent: queued “second” (1 waiting); it runs when the current turn ends" {
			found = true
		}
	}
	if !found {
		t.Errorf("no queued message before the answer: %+v", h.ed.Messages())
	}
}

// TestQueueMethods: the methods reach the agent with their params, and
// their errors map to LSP codes.
func TestQueueMethods(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	turn := h.startTurn(map[string]any{"prompt": "first"})
	sid := turn.SessionID
	var empty map[string]any
	for _, c := range []struct {
		method string
		params map[string]any
	}{
		{methodUpdateQueued, map[string]any{"sessionId": sid, "turnId": "t9", "prompt": "edited"}},
		{methodRemoveQueued, map[string]any{"sessionId": sid, "turnId": "t9"}},
		{methodResumeQueue, map[string]any{"sessionId": sid}},
	} {
		if err := h.ed.Request(h.ctx, c.method, c.params, &empty); err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
	}
	var sr agent.SteerResult
	if err := h.ed.Request(h.ctx, methodSteer, map[string]any{"sessionId": sid, "prompt": "use tabs"}, &sr); err != nil {
		t.Fatal(err)
	}
	if sr.TurnID != turn.TurnID || sr.Started {
		t.Errorf("steer answered %+v, want the running turn %s", sr, turn.TurnID)
	}
	want := []string{"update " + sid + " t9 edited", "remove " + sid + " t9", "resume " + sid, "steer " + sid + " use tabs"}
	if got := h.agent.queueCalls(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("calls %q, want %q", got, want)
	}

	bad := []struct {
		method string
		params map[string]any
		code   int64
		text   string
	}{
		{methodSteer, map[string]any{"sessionId": sid}, int64(jsonrpc2.InvalidParams), "either prompt or the turnId"},
		{methodSteer, map[string]any{"sessionId": sid, "prompt": "x", "turnId": "t2"}, int64(jsonrpc2.InvalidParams), "either prompt or the turnId"},
		{methodSteer, map[string]any{"sessionId": sid, "prompt": " "}, int64(jsonrpc2.InvalidParams), "must not be empty"},
		{methodSteer, map[string]any{"sessionId": sid, "prompt": strings.Repeat("x", agent.MaxQueuedPromptBytes+1)}, int64(jsonrpc2.InvalidParams), "KiB"},
		{methodRemoveQueued, map[string]any{"sessionId": sid, "turnId": "missing"}, int64(jsonrpc2.InvalidParams), "no such prompt"},
		{methodRemoveQueued, map[string]any{"sessionId": sid}, int64(jsonrpc2.InvalidParams), "turnId is required"},
		{methodUpdateQueued, map[string]any{"sessionId": sid, "turnId": "t9"}, int64(jsonrpc2.InvalidParams), "prompt is required"},
		{methodResumeQueue, map[string]any{}, int64(jsonrpc2.InvalidParams), "sessionId is required"},
	}
	for _, c := range bad {
		err := h.ed.Request(h.ctx, c.method, c.params, &empty)
		if msg := rpcError(t, err, c.code); !strings.Contains(msg, c.text) {
			t.Errorf("%s %v: %q, want it to say %q", c.method, c.params, msg, c.text)
		}
	}
}

// TestPlainClientSeesTheQueueWait: a client without agent/event is told
// once when the queue starts to wait, and sees a steer in its log.
func TestPlainClientSeesTheQueueWait(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	turn := h.startTurn(map[string]any{"prompt": "first"})
	h.agent.emit(turn.SessionID, turn.TurnID, event.Steered{Text: "use tabs"})
	items := []event.QueuedPrompt{{TurnID: "t5", Prompt: "next"}, {TurnID: "t6", Prompt: "after"}}
	h.agent.emit(turn.SessionID, "", event.QueueChanged{Items: items, Paused: true})
	h.agent.emit(turn.SessionID, "", event.QueueChanged{Items: items[:1], Paused: true})
	waitMessage(t, h, protocol.MessageTypeLog, "You, while it worked: use tabs")
	waitMessage(t, h, protocol.MessageTypeInfo, "2 queued prompt(s) wait")
	h.agent.emit(turn.SessionID, turn.TurnID, event.TurnCompleted{Status: event.StatusCompleted, LastMessage: "the end"})
	waitMessage(t, h, protocol.MessageTypeInfo, "the end")
	n := 0
	for _, m := range h.ed.Messages() {
		if strings.Contains(m.Message, "queued prompt(s) wait") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the wait was told %d times, want once: %+v", n, h.ed.Messages())
	}
}

// TestStopEmptiesTheQueue: Agent: Stop (agent.interrupt) empties the
// queue of the sessions it stops.
func TestStopEmptiesTheQueue(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	turn := h.startTurn(map[string]any{"prompt": "first"})
	h.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "second"})
	execute(t, h, commandInterrupt)
	h.agent.mu.Lock()
	cleared := append([]string(nil), h.agent.queueState().cleared...)
	h.agent.mu.Unlock()
	if len(cleared) != 1 || cleared[0] != turn.SessionID {
		t.Errorf("queues emptied: %v, want %s", cleared, turn.SessionID)
	}
}

// TestPlainClientHearsAQueuedTurnStart: with no request to announce it,
// a queued turn's start is told to a plain client when it starts.
func TestPlainClientHearsAQueuedTurnStart(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	turn := h.startTurn(map[string]any{"prompt": "first"})
	queued := h.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "second\nmore"})
	sid := turn.SessionID
	h.agent.emit(sid, turn.TurnID, event.QueueChanged{Items: []event.QueuedPrompt{{TurnID: queued.TurnID, Prompt: "second\nmore"}}})
	h.agent.complete(sid, turn.TurnID, event.StatusCompleted)
	h.agent.emit(sid, "", event.QueueChanged{Items: []event.QueuedPrompt{}})
	h.agent.emit(sid, queued.TurnID, event.TurnStarted{Prompt: "second\nmore"})
	waitMessage(t, h, protocol.MessageTypeInfo, "Agent: working on the queued “second”")
	// A turn that was never queued is announced by its request alone.
	h.agent.emit(sid, queued.TurnID, event.TurnCompleted{Status: event.StatusCompleted, LastMessage: "done two"})
	h.agent.emit(sid, "t99", event.TurnStarted{Prompt: "other"})
	h.agent.emit(sid, "t99", event.TurnCompleted{Status: event.StatusCompleted, LastMessage: "done other"})
	waitMessage(t, h, protocol.MessageTypeInfo, "done other")
	for _, m := range h.ed.Messages() {
		if strings.Contains(m.Message, "queued “other”") {
			t.Errorf("a turn that was not queued was announced as queued: %q", m.Message)
		}
	}
}

// TestResumeQueueForStockClients: while the current conversation's queue
// waits for the user, a code action offers Agent: Resume queue, and its
// command (agent.resumeQueue, listed among the commands) resumes it.
func TestResumeQueueForStockClients(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	if !slices.Contains(commands, commandResumeQueue) {
		t.Errorf("commands %q lack %s", commands, commandResumeQueue)
	}
	turn := h.startTurn(map[string]any{"prompt": "first"})
	h.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "second"})
	params := map[string]any{"textDocument": map[string]string{"uri": "file:///x.go"},
		"range": map[string]any{"start": map[string]int{}, "end": map[string]int{}}, "context": map[string]any{"diagnostics": []any{}}}
	if got := titles(codeActions(t, h, params)); slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "Agent: Resume queue") }) {
		t.Errorf("Resume queue offered while nothing is paused: %q", got)
	}
	h.agent.mu.Lock()
	h.agent.queueState().paused = map[string]bool{turn.SessionID: true}
	h.agent.mu.Unlock()
	if got := titles(codeActions(t, h, params)); !slices.Contains(got, "Agent: Resume queue (1 waiting)") {
		t.Errorf("code actions %q", got)
	}
	execute(t, h, commandResumeQueue)
	if calls := h.agent.queueCalls(); !slices.Contains(calls, "resume "+turn.SessionID) {
		t.Errorf("calls %q", calls)
	}
	waitMessage(t, h, protocol.MessageTypeInfo, "Agent: the 1 queued prompt(s) run when the current turn ends")
	if got := titles(codeActions(t, h, params)); slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "Agent: Resume queue") }) {
		t.Errorf("Resume queue still offered: %q", got)
	}
}
