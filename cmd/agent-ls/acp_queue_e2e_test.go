package main

import (
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// waitLog waits until the server's log says text.
func (r *acpRun) waitLog(text string) {
	r.t.Helper()
	for !strings.Contains(r.log.String(), text) {
		select {
		case <-r.ctx.Done():
			r.t.Fatalf("the log never said %q", text)
		case <-time.After(10 * time.Millisecond):
		}
	}
}

type promptResult struct {
	res sdk.PromptResponse
	err error
}

func (r *acpRun) promptAsync(id, text string) chan promptResult {
	ch := make(chan promptResult, 1)
	go func() {
		res, err := r.prompt(id, text)
		ch <- promptResult{res, err}
	}()
	return ch
}

// A session/prompt while a turn runs waits in the queue (initialize
// says promptQueueing) and answers when its own turn ends, after the
// first; session/cancel stops the running turn and the waiting prompts.
func TestACPPromptQueueing(t *testing.T) {
	gate1, gate2 := fakemodel.NewGate(1), fakemodel.NewGate(1)
	m := fakemodel.New(
		fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("first ", "answer")}}, Gate: gate1},
		fakemodel.Say("second answer"),
		fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("never")}}, Gate: gate2},
	)
	t.Cleanup(m.Close)
	t.Cleanup(gate2.Release) // the cancelled stream is never released before
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	init := r.initialize(false)
	if meta, _ := init.AgentCapabilities.Meta["agentLs"].(map[string]any); meta["promptQueueing"] != true {
		t.Errorf("initialize's agentCapabilities._meta: %v", init.AgentCapabilities.Meta)
	}
	id := r.newSession()
	first := r.promptAsync(id, "first")
	<-gate1.Reached()
	second := r.promptAsync(id, "second")
	r.waitLog("prompt queued")
	gate1.Release()
	for i, ch := range []chan promptResult{first, second} {
		if got := <-ch; got.err != nil || got.res.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %d: %+v %v", i+1, got.res, got.err)
		}
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	if in := inputTexts(t, reqs[1]); in[len(in)-1] != "second" || !strings.Contains(strings.Join(in, "\n"), "first answer") {
		t.Errorf("the second turn's request: %q", in)
	}

	// Cancel: the running turn and the prompt waiting behind it both
	// answer cancelled, and the waiting one never reaches the model.
	third := r.promptAsync(id, "third")
	<-gate2.Reached()
	fourth := r.promptAsync(id, "fourth")
	for strings.Count(r.log.String(), "prompt queued") < 2 {
		select {
		case <-r.ctx.Done():
			t.Fatal("the fourth prompt was not queued")
		case <-time.After(10 * time.Millisecond):
		}
	}
	if err := r.conn.Cancel(r.ctx, sdk.CancelNotification{SessionId: sdk.SessionId(id)}); err != nil {
		t.Fatal(err)
	}
	for i, ch := range []chan promptResult{third, fourth} {
		if got := <-ch; got.err != nil || got.res.StopReason != sdk.StopReasonCancelled {
			t.Fatalf("prompt %d after cancel: %+v %v", i+3, got.res, got.err)
		}
	}
	if n := len(m.Requests()); n != 3 {
		t.Errorf("%d model requests, want 3: the cancelled queue ran", n)
	}
}

// /steer TEXT while a turn runs sends TEXT into that turn: the model's
// next request ends with it, marked as sent mid-turn, and the /steer
// prompt answers when that turn ends. With no turn running it starts
// one.
func TestACPSteer(t *testing.T) {
	gate := fakemodel.NewGate(1)
	m := fakemodel.New(
		fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("working")}}, Gate: gate},
		fakemodel.Say("noted, tabs"),
		fakemodel.Say("started by a steer"),
	)
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, t.TempDir(), t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	first := r.promptAsync(id, "first")
	<-gate.Reached()
	steer := r.promptAsync(id, "/steer use tabs")
	r.waitLog("steer for the running turn")
	gate.Release()
	for i, ch := range []chan promptResult{first, steer} {
		if got := <-ch; got.err != nil || got.res.StopReason != sdk.StopReasonEndTurn {
			t.Fatalf("prompt %d: %+v %v", i+1, got.res, got.err)
		}
	}
	reqs := m.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2: the steer ran as a turn of its own", len(reqs))
	}
	if in := inputTexts(t, reqs[1]); !strings.HasSuffix(in[len(in)-1], "\n\nuse tabs") || !strings.Contains(in[len(in)-1], "while you were working") {
		t.Errorf("the turn's second request ends with %q", in[len(in)-1])
	}
	if got, err := r.prompt(id, "/steer go on"); err != nil || got.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/steer with no turn running: %+v %v", got, err)
	}
	if in := inputTexts(t, m.Requests()[2]); in[len(in)-1] != "go on" {
		t.Errorf("the turn /steer started asked %q", in[len(in)-1])
	}
}
