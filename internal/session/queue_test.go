package session

import (
	"context"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// heldModel waits in its first request until the request ends (an
// interrupt), telling entered when it is there.
type heldModel struct {
	entered chan struct{}
}

func (h *heldModel) Stream(ctx context.Context, _ *model.Request, _ func(model.Event)) (*model.Response, error) {
	close(h.entered)
	<-ctx.Done()
	return nil, ctx.Err()
}

// TestQueueSurvivesRestart: the prompts waiting when agent-ls stopped
// come back from the record, paused, with the editor context and images
// they carry, and run after the next prompt.
func TestQueueSurvivesRestart(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	st := New(dir, nil)
	held := &heldModel{entered: make(chan struct{})}
	fe := newFrontend("")
	mgr := manager(t, st, held, fe, ws, policy.OnRequest)
	info, err := mgr.NewSession(agent.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.StartTurn(info.SessionID, agent.TurnInput{Prompt: "first"}); err != nil {
		t.Fatal(err)
	}
	<-held.entered
	var want []event.QueuedPrompt
	carried := agent.TurnInput{Context: []agent.ContextItem{{Path: ws + "/a.go", StartLine: 3, EndLine: 4, Text: "func carried() {}", Diagnostics: []string{"unused"}}},
		Images: []string{"data:image/png;base64,iVBORw0KGgo="}}
	for _, p := range []string{"second", "third"} {
		in := agent.TurnInput{Prompt: p}
		if p == "second" {
			in.Context, in.Images = carried.Context, carried.Images
		}
		sub, err := mgr.Submit(info.SessionID, in)
		if err != nil || !sub.Queued {
			t.Fatalf("submit %q: %+v, %v", p, sub, err)
		}
		want = append(want, event.QueuedPrompt{TurnID: sub.TurnID, Prompt: p})
	}
	mgr.Close()
	<-fe.ended
	st.Close()

	st2 := New(dir, nil)
	ld, err := st2.Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ld.Record.Queue, want) {
		t.Fatalf("recorded queue %+v, want %+v", ld.Record.Queue, want)
	}
	if got := ld.Record.Queued; len(got) != 1 || !reflect.DeepEqual(got[want[0].TurnID], carried) {
		t.Fatalf("recorded context and images %+v", got)
	}
	m2 := &script{replies: [][]model.Item{answer("a1", "new"), answer("a2", "2"), answer("a3", "3")}}
	fe2 := newFrontend("")
	mgr2 := manager(t, st2, m2, fe2, ws, policy.OnRequest)
	if _, err := mgr2.Restore(ld.Record); err != nil {
		t.Fatal(err)
	}
	items, paused, err := mgr2.QueueOf(info.SessionID)
	if err != nil || !paused || !slices.Equal(items, want) {
		t.Fatalf("restored queue %+v paused %v (%v)", items, paused, err)
	}
	turn, err := mgr2.StartTurn(info.SessionID, agent.TurnInput{Prompt: "new"})
	if err != nil {
		t.Fatal(err)
	}
	if turn.ID() == want[0].TurnID || turn.ID() == want[1].TurnID {
		t.Fatalf("the new turn reuses the id %s of a queued one", turn.ID())
	}
	for range 3 {
		if tc := <-fe2.ended; tc.Status != event.StatusCompleted {
			t.Fatalf("turn %+v", tc)
		}
	}
	var prompts []string
	for _, r := range m2.requests {
		prompts = append(prompts, strings.SplitN(r.Input[len(r.Input)-1].Text, "\n", 2)[0])
	}
	if !slices.Equal(prompts, []string{"new", "second", "third"}) {
		t.Errorf("prompts after the restart %q", prompts)
	}
	if second := m2.requests[1].Input[len(m2.requests[1].Input)-1]; !strings.Contains(second.Text, "func carried() {}") ||
		!strings.Contains(second.Text, "- unused") || !slices.Equal(second.Images, carried.Images) {
		t.Errorf("the restored prompt lost what it carried: %+v", second)
	}
	mgr2.Close()
	st2.Close()
	ld2, err := New(dir, nil).Load(info.SessionID)
	if err != nil || len(ld2.Record.Queue) != 0 {
		t.Errorf("the emptied queue is recorded as %+v (%v)", ld2.Record.Queue, err)
	}
}

// gateModel holds its first request until release is closed; every
// request is answered "ok".
type gateModel struct {
	entered, release chan struct{}
	mu               sync.Mutex
	n                int
}

func (g *gateModel) Stream(ctx context.Context, _ *model.Request, emit func(model.Event)) (*model.Response, error) {
	g.mu.Lock()
	g.n++
	first := g.n == 1
	g.mu.Unlock()
	if first {
		close(g.entered)
		select {
		case <-g.release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	out := answer("a", "ok")
	emit(model.Event{Kind: model.ItemDone, ItemID: "a", Item: &out[0]})
	return &model.Response{Output: out}, nil
}

// TestTurnIDsGoOnAfterTheQueuedOnes: a queued prompt takes its turn id
// when it is queued; after a restart new turns are numbered after the
// highest id that ran, even when one queued before it never did.
func TestTurnIDsGoOnAfterTheQueuedOnes(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	st := New(dir, nil)
	g := &gateModel{entered: make(chan struct{}), release: make(chan struct{})}
	fe := newFrontend("")
	mgr := manager(t, st, g, fe, ws, policy.OnRequest)
	info, err := mgr.NewSession(agent.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.StartTurn(info.SessionID, agent.TurnInput{Prompt: "first"}); err != nil {
		t.Fatal(err)
	}
	<-g.entered
	removed, _ := mgr.Submit(info.SessionID, agent.TurnInput{Prompt: "removed"})
	kept, _ := mgr.Submit(info.SessionID, agent.TurnInput{Prompt: "kept"})
	if err := mgr.RemoveQueued(info.SessionID, removed.TurnID); err != nil {
		t.Fatal(err)
	}
	close(g.release)
	<-fe.ended
	<-fe.ended
	mgr.Close()
	st.Close()

	st2 := New(dir, nil)
	ld, err := st2.Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	mgr2 := manager(t, st2, &script{replies: [][]model.Item{answer("b", "ok")}}, newFrontend(""), ws, policy.OnRequest)
	if _, err := mgr2.Restore(ld.Record); err != nil {
		t.Fatal(err)
	}
	turn, err := mgr2.StartTurn(info.SessionID, agent.TurnInput{Prompt: "after"})
	if err != nil {
		t.Fatal(err)
	}
	if want := info.SessionID + "-t4"; kept.TurnID != info.SessionID+"-t3" || turn.ID() != want {
		t.Errorf("kept %s, the turn after the restart %s; want %s", kept.TurnID, turn.ID(), want)
	}
	<-turn.Done()
}
