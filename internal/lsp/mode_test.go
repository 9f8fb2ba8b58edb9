package lsp

import (
	"fmt"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
)

// SetMode keeps the session's mode in its options, as agent.Manager
// does, refusing unknown names and sessions.
func (a *fakeAgent) SetMode(sessionID string, mode agent.Mode) error {
	m, err := agent.ParseMode(string(mode))
	if err != nil {
		return err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	o, ok := a.sessions[sessionID]
	if !ok {
		return fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	o.Mode = m
	a.sessions[sessionID] = o
	return a.queueState().note("setMode " + sessionID + " " + string(m))
}

// ApprovePlan refuses outside plan mode and queues behind a running
// turn.
func (a *fakeAgent) ApprovePlan(sessionID string) (agent.Submitted, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.sessions[sessionID].Mode != agent.ModePlan {
		return agent.Submitted{}, agent.ErrNotPlanning
	}
	o := a.sessions[sessionID]
	o.Mode = agent.ModeDefault
	a.sessions[sessionID] = o
	a.nextID++
	id := fmt.Sprintf("t%d", a.nextID)
	return agent.Submitted{TurnID: id, Queued: a.running[sessionID] != ""}, a.queueState().note("approvePlan " + sessionID)
}

func (q *fakeQueue) note(call string) error {
	q.calls = append(q.calls, call)
	return nil
}

// TestModeMethods: agent/newSession takes a mode and answers it,
// agent/setMode and agent/approvePlan reach the agent, and their errors
// map to LSP codes.
func TestModeMethods(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true})
	var info sessionResult
	if err := h.ed.Request(h.ctx, methodNewSession, map[string]any{"mode": "plan"}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Mode != agent.ModePlan {
		t.Errorf("newSession answered mode %q, want plan", info.Mode)
	}
	sid := info.SessionID
	var ap approvePlanResult
	if err := h.ed.Request(h.ctx, methodApprovePlan, map[string]any{"sessionId": sid}, &ap); err != nil {
		t.Fatal(err)
	}
	if ap.TurnID == "" || ap.Queued {
		t.Errorf("approvePlan answered %+v, want a started turn", ap)
	}
	var empty map[string]any
	if err := h.ed.Request(h.ctx, methodSetMode, map[string]any{"sessionId": sid, "mode": "plan"}, &empty); err != nil {
		t.Fatal(err)
	}
	want := []string{"approvePlan " + sid, "setMode " + sid + " plan"}
	if got := h.agent.queueCalls(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("calls %q, want %q", got, want)
	}
	var plain sessionResult
	if err := h.ed.Request(h.ctx, methodNewSession, map[string]any{}, &plain); err != nil {
		t.Fatal(err)
	}
	if plain.Mode != agent.ModeDefault {
		t.Errorf("a session without a mode answered %q, want default", plain.Mode)
	}

	bad := []struct {
		method string
		params map[string]any
		code   int64
		text   string
	}{
		{methodSetMode, map[string]any{"sessionId": sid}, int64(jsonrpc2.InvalidParams), "mode is required"},
		{methodSetMode, map[string]any{"mode": "plan"}, int64(jsonrpc2.InvalidParams), "sessionId is required"},
		{methodSetMode, map[string]any{"sessionId": sid, "mode": "yolo"}, int64(jsonrpc2.InvalidParams), "unknown mode"},
		{methodSetMode, map[string]any{"sessionId": "nope", "mode": "plan"}, int64(jsonrpc2.InvalidParams), "unknown session"},
		{methodApprovePlan, map[string]any{"sessionId": plain.SessionID}, int64(codeRequestFailed), "not in plan mode"},
		{methodApprovePlan, map[string]any{}, int64(jsonrpc2.InvalidParams), "sessionId is required"},
		{methodNewSession, map[string]any{"mode": "yolo"}, int64(jsonrpc2.InvalidParams), "unknown mode"},
	}
	for _, c := range bad {
		err := h.ed.Request(h.ctx, c.method, c.params, &empty)
		if msg := rpcError(t, err, c.code); !strings.Contains(msg, c.text) {
			t.Errorf("%s %v: %q, want it to say %q", c.method, c.params, msg, c.text)
		}
	}
}
