package agent

import (
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// holdingFrontend holds the turnCompleted event until released, as a
// client that reacts to it at once would see the turn: ended.
type holdingFrontend struct {
	*recorder
	completed chan struct{}
	release   chan struct{}
}

func (f *holdingFrontend) Event(ev event.Event) {
	if _, ok := ev.Payload.(event.TurnCompleted); ok {
		close(f.completed)
		<-f.release
	}
	f.recorder.Event(ev)
}

// TestTurnCompletedMeansEnded: once a client has turnCompleted, a new turn
// (or an undo) is accepted, not refused as "a turn is running", and the
// handle reports how the turn ended.
func TestTurnCompletedMeansEnded(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("m1", "one"), say("m2", "two"))
	fe := &holdingFrontend{recorder: newRecorder(), completed: make(chan struct{}), release: make(chan struct{})}
	mgr := newTestManager(t, m, fe)
	info, _ := mgr.NewSession(SessionOptions{})
	first, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "one"})
	if err != nil {
		t.Fatal(err)
	}
	<-fe.completed
	errs := make(chan error, 1)
	go func() {
		_, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "two"})
		errs <- err
	}()
	fe.completed = make(chan struct{})
	close(fe.release)
	if err := <-errs; err != nil {
		t.Fatalf("a turn started right after turnCompleted: %v", err)
	}
	<-first.Done()
	if r := first.Result(); r.Status != event.StatusCompleted || r.LastMessage != "one" {
		t.Errorf("result %+v", r)
	}
	fe.recorder.wait(t)
	fe.recorder.wait(t)
}
