package main

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// queuedAnswer is agent/startTurn's answer with its queued field.
type queuedAnswer struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	Queued    bool   `json:"queued"`
}

func (s *session) startOrQueue(params map[string]any) queuedAnswer {
	s.t.Helper()
	var res queuedAnswer
	if err := s.ed.Request(s.ctx, "agent/startTurn", params, &res); err != nil {
		s.t.Fatalf("agent/startTurn: %v", err)
	}
	return res
}

// lastQueue is the last queueChanged event of the session.
func (s *session) lastQueue(sessionID string) (event.QueueChanged, bool) {
	evs := s.ed.Events()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].SessionID != sessionID || evs[i].Type != event.TypeQueueChanged {
			continue
		}
		ev, err := event.Parse(evs[i].Raw)
		if err != nil {
			s.t.Fatal(err)
		}
		return ev.Payload.(event.QueueChanged), true
	}
	return event.QueueChanged{}, false
}

func gateReached(t *testing.T, s *session, g *fakemodel.Gate) {
	t.Helper()
	select {
	case <-g.Reached():
	case <-s.ctx.Done():
		t.Fatal("the model request was not reached")
	}
}

// Through the real server and the model's wire format: a prompt sent
// while a turn runs waits and runs after it; a steer lands in the running
// turn's next request; an interrupt pauses the queue; after a restart the
// resumed session's queue still waits, and agent/resumeQueue runs it.
func TestQueueAndSteerThroughTheServer(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	gate1, gate2 := fakemodel.NewGate(1), fakemodel.NewGate(1)
	m := fakemodel.New(
		fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("one")}}, Gate: gate1},
		fakemodel.Say("noted"),
		fakemodel.Say("two"),
		fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("never")}}, Gate: gate2},
	)
	t.Cleanup(m.Close)
	s := startOn(t, m, ws, env, editor.Config{}, editor.Options{Events: true})
	first := s.startOrQueue(map[string]any{"prompt": "first"})
	sid := first.SessionID
	gateReached(t, s, gate1)
	second := s.startOrQueue(map[string]any{"sessionId": sid, "prompt": "second"})
	if !second.Queued || second.TurnID == first.TurnID {
		t.Fatalf("a prompt during a turn: %+v", second)
	}
	var steer struct {
		TurnID  string `json:"turnId"`
		Started bool   `json:"started"`
	}
	if err := s.ed.Request(s.ctx, "agent/steer", map[string]any{"sessionId": sid, "prompt": "use tabs"}, &steer); err != nil {
		t.Fatal(err)
	}
	if steer.TurnID != first.TurnID || steer.Started {
		t.Fatalf("agent/steer answered %+v", steer)
	}
	gate1.Release()
	if done := s.wait(first.TurnID); done.LastMessage != "noted" {
		t.Errorf("the first turn ended with %+v, want the answer to the steer", done)
	}
	if done := s.wait(second.TurnID); done.Status != "completed" || done.LastMessage != "two" {
		t.Errorf("the queued turn: %+v", done)
	}
	reqs := m.Requests()
	if in := inputTexts(t, reqs[0]); strings.Contains(strings.Join(in, "\n"), "use tabs") {
		t.Error("the steer reached the request before it")
	}
	if in := inputTexts(t, reqs[1]); !strings.HasSuffix(in[len(in)-1], "\n\nuse tabs") {
		t.Errorf("the first turn's second request ends with %q", in[len(in)-1])
	}
	if in := inputTexts(t, reqs[2]); in[len(in)-1] != "second" {
		t.Errorf("the queued turn's request ends with %q", in[len(in)-1])
	}
	if ts := types(s.events(first.TurnID)); !strings.Contains(ts, "steered") {
		t.Errorf("no steered event in %s", ts)
	}

	third := s.startOrQueue(map[string]any{"sessionId": sid, "prompt": "third"})
	gateReached(t, s, gate2)
	fourth := s.startOrQueue(map[string]any{"sessionId": sid, "prompt": "fourth"})
	if err := s.ed.Request(s.ctx, "agent/interrupt", map[string]any{"sessionId": sid}, nil); err != nil {
		t.Fatal(err)
	}
	gate2.Release()
	if done := s.wait(third.TurnID); done.Status != "interrupted" {
		t.Fatalf("third turn %+v", done)
	}
	q, ok := s.lastQueue(sid)
	if !ok || !q.Paused || !slices.Equal(q.Items, []event.QueuedPrompt{{TurnID: fourth.TurnID, Prompt: "fourth"}}) {
		t.Fatalf("the queue after the interrupt: %+v (%v)", q, ok)
	}
	if err := s.ed.Shutdown(s.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ed.Exit(s.ctx); err != nil {
		t.Fatal(err)
	}

	m2 := fakemodel.New(fakemodel.Say("four"))
	t.Cleanup(m2.Close)
	s2 := startOn(t, m2, ws, env, editor.Config{}, editor.Options{Events: true})
	var res struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := s2.ed.Request(s2.ctx, "agent/resumeSession", map[string]any{"sessionId": sid}, &res); err != nil {
		t.Fatal(err)
	}
	if got := itemTypes(res.Items); !strings.Contains(got, "steered") {
		t.Errorf("the redraw lacks the steer: %s", got)
	}
	// The restored queue's event may follow the answer.
	if _, err := s2.ed.WaitEvent(s2.ctx, func(ev editor.Event) bool {
		return ev.SessionID == sid && ev.Type == event.TypeQueueChanged
	}); err != nil {
		t.Fatalf("no queueChanged after the restart: %v", err)
	}
	if q, ok := s2.lastQueue(sid); !ok || !q.Paused || len(q.Items) != 1 || q.Items[0].TurnID != fourth.TurnID {
		t.Fatalf("the queue after the restart: %+v (%v)", q, ok)
	}
	var resumed struct {
		TurnID string `json:"turnId"`
	}
	if err := s2.ed.Request(s2.ctx, "agent/resumeQueue", map[string]any{"sessionId": sid}, &resumed); err != nil {
		t.Fatal(err)
	}
	if resumed.TurnID != fourth.TurnID {
		t.Fatalf("agent/resumeQueue started %q, want %s", resumed.TurnID, fourth.TurnID)
	}
	if done := s2.wait(fourth.TurnID); done.Status != "completed" || done.LastMessage != "four" {
		t.Errorf("the resumed turn: %+v", done)
	}
	if in := inputTexts(t, m2.Requests()[0]); in[len(in)-1] != "fourth" {
		t.Errorf("the resumed turn's request ends with %q", in[len(in)-1])
	}
}

// TestQueuedTurnReadsTheConfigFiles: a prompt that waited in the queue
// starts with the config files as they are when it starts, like a prompt
// the user sends then.
func TestQueuedTurnReadsTheConfigFiles(t *testing.T) {
	gate := fakemodel.NewGate(1)
	m := fakemodel.New(
		fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("one")}}, Gate: gate},
		fakemodel.Say("two"),
	)
	t.Cleanup(m.Close)
	dir := t.TempDir()
	writeProjectConfig(t, dir, "model = \"gpt-5\"\n")
	s := startOn(t, m, dir, []string{"AGENT_LS_MODEL="}, editor.Config{}, editor.Options{Events: true})
	first := s.startOrQueue(map[string]any{"prompt": "first"})
	gateReached(t, s, gate)
	second := s.startOrQueue(map[string]any{"sessionId": first.SessionID, "prompt": "second"})
	if !second.Queued {
		t.Fatalf("a prompt during a turn: %+v", second)
	}
	writeProjectConfig(t, dir, "model = \"gpt-5-mini\"\n")
	gate.Release()
	if done := s.wait(second.TurnID); done.Status != "completed" {
		t.Fatalf("the queued turn: %+v", done)
	}
	reqs := m.Requests()
	if len(reqs) != 2 || reqs[0].JSON["model"] != "gpt-5" || reqs[1].JSON["model"] != "gpt-5-mini" {
		for i, r := range reqs {
			t.Logf("request %d: model %v", i, r.JSON["model"])
		}
		t.Fatal("the queued turn did not run with the config file as it was when it started")
	}
}
