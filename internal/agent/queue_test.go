package agent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// held answers like next once release is closed; entered is closed when
// the request has arrived (or when ctx ends first: an interrupt).
func held(entered, release chan struct{}, next func(context.Context, *model.Request, func(model.Event)) (*model.Response, error)) func(context.Context, *model.Request, func(model.Event)) (*model.Response, error) {
	return func(ctx context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error) {
		close(entered)
		select {
		case <-release:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return next(ctx, req, emit)
	}
}

// waitClosed fails the test when ch is not closed in time (a hang, not
// a timing assertion).
func waitClosed(t *testing.T, ch chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s did not happen", what)
	}
}

// lastUser is the text of the last user message of a request.
func lastUser(req *model.Request) string {
	for i := len(req.Input) - 1; i >= 0; i-- {
		if it := req.Input[i]; it.Type == model.ItemMessage && it.Role == model.RoleUser {
			return it.Text
		}
	}
	return ""
}

// started lists the turns that started, in order, as "id:prompt".
func (r *recorder) started() []string {
	var out []string
	for _, ev := range r.all() {
		if p, ok := ev.Payload.(event.TurnStarted); ok {
			out = append(out, ev.TurnID+":"+p.Prompt)
		}
	}
	return out
}

// lastQueue is the last queueChanged event.
func (r *recorder) lastQueue(t *testing.T) event.QueueChanged {
	t.Helper()
	evs := r.all()
	for i := len(evs) - 1; i >= 0; i-- {
		if q, ok := evs[i].Payload.(event.QueueChanged); ok {
			return q
		}
	}
	t.Fatal("no queueChanged event")
	return event.QueueChanged{}
}

// busySession starts a session whose first turn waits in its first model
// request until release is closed, then answers "one"; the steps after
// are the model's next answers.
func busySession(t *testing.T, steps ...func(context.Context, *model.Request, func(model.Event)) (*model.Response, error)) (mgr *Manager, m *scriptedModel, rec *recorder, sid, first string, release chan struct{}) {
	t.Helper()
	m = &scriptedModel{}
	entered, release := make(chan struct{}), make(chan struct{})
	m.add(held(entered, release, say("m1", "one")))
	m.add(steps...)
	rec = newRecorder()
	mgr = newTestManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first, err = startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "first"}))
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, entered, "the first model request")
	return mgr, m, rec, info.SessionID, first, release
}

func submit(t *testing.T, mgr *Manager, sid, prompt string) Submitted {
	t.Helper()
	sub, err := mgr.Submit(sid, TurnInput{Prompt: prompt})
	if err != nil {
		t.Fatalf("submit %q: %v", prompt, err)
	}
	return sub
}

// TestQueuedPromptsRunInOrder: prompts sent while a turn runs wait, each
// under its own turn id, and run in order, each as its own turn, when the
// turn before them completes.
func TestQueuedPromptsRunInOrder(t *testing.T) {
	mgr, m, rec, sid, first, release := busySession(t, say("m2", "two"), say("m3", "three"))
	second, third := submit(t, mgr, sid, "second"), submit(t, mgr, sid, "third")
	if !second.Queued || !third.Queued || second.Waiting != 1 || third.Waiting != 2 {
		t.Fatalf("submitted %+v, %+v: want both queued", second, third)
	}
	if ids := []string{first, second.TurnID, third.TurnID}; ids[0] == ids[1] || ids[1] == ids[2] || ids[0] == ids[2] {
		t.Fatalf("turn ids %v are not distinct", ids)
	}
	q := rec.lastQueue(t)
	if len(q.Items) != 2 || q.Items[0] != (event.QueuedPrompt{TurnID: second.TurnID, Prompt: "second"}) || q.Items[1].Prompt != "third" || q.Paused {
		t.Fatalf("queue %+v", q)
	}
	close(release)
	for range 3 {
		if done := rec.wait(t); done.Status != event.StatusCompleted {
			t.Fatalf("turn %+v", done)
		}
	}
	want := []string{first + ":first", second.TurnID + ":second", third.TurnID + ":third"}
	if got := rec.started(); !slices.Equal(got, want) {
		t.Errorf("turns started %v, want %v", got, want)
	}
	// Their senders learn how their own turns ended.
	if r := third.Turn.Result(); r.Status != event.StatusCompleted || r.LastMessage != "three" || third.Turn.ID() != third.TurnID {
		t.Errorf("the third prompt's turn: %+v", r)
	}
	if got := lastUser(m.request(1)) + "," + lastUser(m.request(2)); got != "second,third" {
		t.Errorf("prompts of the requests %q", got)
	}
	if q := rec.lastQueue(t); len(q.Items) != 0 {
		t.Errorf("queue at the end %+v", q)
	}
}

// TestQueueEditAndRemove: a waiting prompt can be edited and removed
// before it starts; one that is not waiting cannot.
func TestQueueEditAndRemove(t *testing.T) {
	mgr, m, rec, sid, _, release := busySession(t, say("m2", "two"), say("m3", "three"))
	a, b, c := submit(t, mgr, sid, "a"), submit(t, mgr, sid, "b"), submit(t, mgr, sid, "c")
	if err := mgr.UpdateQueued(sid, b.TurnID, "b, edited"); err != nil {
		t.Fatal(err)
	}
	if err := mgr.RemoveQueued(sid, a.TurnID); err != nil {
		t.Fatal(err)
	}
	if r := a.Turn.Result(); r.Status != event.StatusInterrupted || r.Error == "" {
		t.Errorf("the removed prompt's sender is told %+v", r)
	}
	for _, err := range []error{mgr.RemoveQueued(sid, a.TurnID), mgr.UpdateQueued(sid, "nope", "x")} {
		if !errors.Is(err, ErrNotQueued) {
			t.Errorf("error %v, want ErrNotQueued", err)
		}
	}
	q := rec.lastQueue(t)
	if len(q.Items) != 2 || q.Items[0] != (event.QueuedPrompt{TurnID: b.TurnID, Prompt: "b, edited"}) || q.Items[1].TurnID != c.TurnID {
		t.Fatalf("queue %+v", q)
	}
	close(release)
	for range 3 {
		rec.wait(t)
	}
	if got := lastUser(m.request(1)) + "|" + lastUser(m.request(2)); got != "b, edited|c" {
		t.Errorf("prompts of the requests %q", got)
	}
	if n := len(rec.started()); n != 3 {
		t.Errorf("%d turns started, want 3: %v", n, rec.started())
	}
}

// TestQueueWaitsAfterInterrupt: after an interrupted turn the queue
// waits, says so, and goes on when the user resumes it; a new prompt
// after an interruption runs first and the queue follows it.
func TestQueueWaitsAfterInterrupt(t *testing.T) {
	mgr, m, rec, sid, first, _ := busySession(t, say("m2", "two"), say("m3", "three"), say("m4", "four"))
	second, third := submit(t, mgr, sid, "second"), submit(t, mgr, sid, "third")
	if err := mgr.Interrupt(sid, first); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusInterrupted {
		t.Fatalf("turn %+v", done)
	}
	items, paused, err := mgr.QueueOf(sid)
	if err != nil || !paused || len(items) != 2 {
		t.Fatalf("queue after the interrupt: %+v paused %v (%v)", items, paused, err)
	}
	if q := rec.lastQueue(t); !q.Paused || len(q.Items) != 2 {
		t.Errorf("the wait is not said: %+v", q)
	}
	if n := len(rec.started()); n != 1 {
		t.Fatalf("%d turns started while the queue waits", n)
	}
	// The user resumes it: the first waiting prompt starts now.
	id, err := mgr.ResumeQueue(sid)
	if err != nil || id != second.TurnID {
		t.Fatalf("resume started %q (%v), want %s", id, err, second.TurnID)
	}
	rec.wait(t)
	if got := lastUser(m.request(1)); got != "second" {
		t.Errorf("the resumed turn's prompt %q", got)
	}
	// third runs after second (the queue no longer waits).
	rec.wait(t)
	if got := rec.started(); len(got) != 3 || got[2] != third.TurnID+":third" {
		t.Errorf("turns %v", got)
	}
	if _, err := mgr.ResumeQueue(sid); err != nil {
		t.Errorf("resuming an empty queue: %v", err)
	}
}

// TestNewPromptRunsBeforeAWaitingQueue: after an interrupt, a new prompt
// runs first, and the waiting queue follows it.
func TestNewPromptRunsBeforeAWaitingQueue(t *testing.T) {
	mgr, m, rec, sid, first, _ := busySession(t, say("m2", "new"), say("m3", "queued"))
	queued := submit(t, mgr, sid, "queued")
	if err := mgr.Interrupt(sid, first); err != nil {
		t.Fatal(err)
	}
	rec.wait(t)
	sub := submit(t, mgr, sid, "new")
	if sub.Queued || sub.Turn == nil {
		t.Fatalf("a prompt with no turn running was queued: %+v", sub)
	}
	rec.wait(t)
	rec.wait(t)
	want := []string{first + ":first", sub.TurnID + ":new", queued.TurnID + ":queued"}
	if got := rec.started(); !slices.Equal(got, want) {
		t.Errorf("turns %v, want %v", got, want)
	}
	if got := lastUser(m.request(2)); got != "queued" {
		t.Errorf("last prompt %q", got)
	}
}

// gateTool runs until released: a tool call in flight.
type gateTool struct{ entered, release chan struct{} }

func (g *gateTool) Spec() tools.Spec {
	return tools.Spec{Type: tools.Function, Name: "gate", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (g *gateTool) Kind() event.ToolKind      { return event.KindOther }
func (g *gateTool) Mutating(*tools.Call) bool { return false }
func (g *gateTool) Title(*tools.Call) string  { return "gate" }
func (g *gateTool) Handle(ctx context.Context, _ *tools.Env, _ *tools.Call) (tools.Output, error) {
	close(g.entered)
	select {
	case <-g.release:
		return tools.Output{Text: "gate passed"}, nil
	case <-ctx.Done():
		return tools.Output{}, ctx.Err()
	}
}

// TestSteerLandsAfterTheToolCalls: a steer sent during a tool call enters
// the history after the call's result, before the next model request,
// told as a message sent mid-turn; the turn goes on under its id.
func TestSteerLandsAfterTheToolCalls(t *testing.T) {
	m := &scriptedModel{}
	m.add(callTools(fcall("g1", "gate", `{}`)), say("m2", "done"))
	rec := newRecorder()
	gate := &gateTool{entered: make(chan struct{}), release: make(chan struct{})}
	mgr := newTestManager(t, m, rec, gate)
	info, _ := mgr.NewSession(SessionOptions{})
	turnID, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "work"}))
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, gate.entered, "the tool call")
	res, err := mgr.Steer(info.SessionID, TurnInput{Prompt: "use tabs"}, "")
	if err != nil || res.TurnID != turnID || res.Started || res.Turn == nil {
		t.Fatalf("steer %+v (%v), want the running turn", res, err)
	}
	close(gate.release)
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	select {
	case <-res.Turn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the steer's handle did not end with the turn")
	}
	if r := res.Turn.Result(); r.Status != event.StatusCompleted || r.LastMessage != "done" {
		t.Errorf("the steer's handle ended with %+v, want the turn it joined", r)
	}
	for _, it := range m.request(0).Input {
		if strings.Contains(it.Text, "use tabs") {
			t.Fatal("the steer reached the request before it")
		}
	}
	in := m.request(1).Input
	last, before := in[len(in)-1], in[len(in)-2]
	if last.Role != model.RoleUser || last.Text != steerNote+"use tabs" {
		t.Errorf("last item %+v, want the steer", last)
	}
	if before.Type != model.ItemFunctionCallOutput || before.CallID != "g1" || before.Output != "gate passed" {
		t.Errorf("item before the steer %+v, want the tool's result", before)
	}
	types := strings.Join(rec.types(turnID), ",")
	if !strings.Contains(types, "toolResult,steered,") {
		t.Errorf("events %s: steered does not follow the tool result", types)
	}
	if n := len(rec.started()); n != 1 {
		t.Errorf("%d turns started, want the one", n)
	}
}

// TestSteerAQueuedPrompt: Send now takes a waiting prompt out of the
// queue into the running turn, which answers it before it ends; with no
// turn running a steer starts one.
func TestSteerAQueuedPrompt(t *testing.T) {
	mgr, m, rec, sid, first, release := busySession(t, say("m2", "two"), say("m3", "three"))
	queued := submit(t, mgr, sid, "second")
	res, err := mgr.Steer(sid, TurnInput{}, queued.TurnID)
	if err != nil || res.TurnID != first || res.Started || res.Turn == nil {
		t.Fatalf("send now %+v (%v)", res, err)
	}
	if q := rec.lastQueue(t); len(q.Items) != 0 {
		t.Errorf("queue after send now %+v", q)
	}
	if _, err := mgr.Steer(sid, TurnInput{}, queued.TurnID); !errors.Is(err, ErrNotQueued) {
		t.Errorf("sending it again: %v", err)
	}
	close(release)
	rec.wait(t)
	if got := lastUser(m.request(1)); got != steerNote+"second" {
		t.Errorf("the turn's next request ends with %q", got)
	}
	var steered []event.Steered
	for _, ev := range rec.all() {
		if s, ok := ev.Payload.(event.Steered); ok && ev.TurnID == first {
			steered = append(steered, s)
		}
	}
	if len(steered) != 1 || steered[0] != (event.Steered{Text: "second", QueuedTurnID: queued.TurnID}) {
		t.Errorf("steered events %+v", steered)
	}
	// No turn runs: the steer starts one.
	res, err = mgr.Steer(sid, TurnInput{Prompt: "third"}, "")
	if err != nil || !res.Started || res.TurnID == first {
		t.Fatalf("steer with no turn %+v (%v)", res, err)
	}
	rec.wait(t)
	if got := rec.started(); len(got) != 2 || got[1] != res.TurnID+":third" {
		t.Errorf("turns %v", got)
	}
}

// TestQueueLimits: the queue takes at most MaxQueued prompts of at most
// MaxQueuedPromptBytes, and says why it refuses.
func TestQueueLimits(t *testing.T) {
	mgr, _, _, sid, first, _ := busySession(t)
	for i := range MaxQueued {
		if _, err := mgr.Submit(sid, TurnInput{Prompt: "p"}); err != nil {
			t.Fatalf("prompt %d: %v", i, err)
		}
	}
	if _, err := mgr.Submit(sid, TurnInput{Prompt: "one too many"}); !errors.Is(err, ErrQueueFull) {
		t.Errorf("over the limit: %v", err)
	}
	if _, err := mgr.Steer(sid, TurnInput{Prompt: "steer"}, ""); !errors.Is(err, ErrQueueFull) {
		t.Errorf("a steer over the limit: %v", err)
	}
	items, _, _ := mgr.QueueOf(sid)
	long := strings.Repeat("x", MaxQueuedPromptBytes+1)
	if err := mgr.UpdateQueued(sid, items[0].TurnID, long); !errors.Is(err, ErrPromptTooLong) {
		t.Errorf("a long edit: %v", err)
	}
	if err := mgr.UpdateQueued(sid, items[0].TurnID, " "); !errors.Is(err, ErrEmptyPrompt) {
		t.Errorf("an empty edit: %v", err)
	}
	if err := mgr.RemoveQueued(sid, items[0].TurnID); err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.Submit(sid, TurnInput{Prompt: long}); !errors.Is(err, ErrPromptTooLong) || !strings.Contains(err.Error(), "KiB") {
		t.Errorf("a long prompt: %v", err)
	}
	if err := mgr.ClearQueue(sid); err != nil {
		t.Fatal(err)
	}
	if items, _, _ := mgr.QueueOf(sid); len(items) != 0 {
		t.Errorf("%d prompts after ClearQueue", len(items))
	}
	if err := mgr.Interrupt(sid, first); err != nil {
		t.Fatal(err)
	}
}

// TestRestoredQueueWaits: the record keeps the queue; restored, it waits
// for the user, says so, and turn ids go on after the queued ones.
func TestRestoredQueueWaits(t *testing.T) {
	mgr, _, _, sid, first, _ := busySession(t)
	second, third := submit(t, mgr, sid, "second"), submit(t, mgr, sid, "third")
	if err := mgr.Interrupt(sid, first); err != nil {
		t.Fatal(err)
	}
	rec, err := mgr.Record(sid)
	if err != nil {
		t.Fatal(err)
	}
	want := []event.QueuedPrompt{{TurnID: second.TurnID, Prompt: "second"}, {TurnID: third.TurnID, Prompt: "third"}}
	if !slices.Equal(rec.Queue, want) {
		t.Fatalf("recorded queue %+v, want %+v", rec.Queue, want)
	}
	rec.Turns = 1 // what a record shows: one turn started
	m2 := &scriptedModel{}
	m2.add(say("m", "new"), say("m", "2"), say("m", "3"))
	fe2 := newRecorder()
	mgr2 := newTestManager(t, m2, fe2)
	rec.Info.Cwd = t.TempDir()
	if _, err := mgr2.Restore(rec); err != nil {
		t.Fatal(err)
	}
	items, paused, _ := mgr2.QueueOf(sid)
	if !paused || !slices.Equal(items, want) {
		t.Fatalf("restored queue %+v paused %v", items, paused)
	}
	if q := fe2.lastQueue(t); !q.Paused || len(q.Items) != 2 {
		t.Errorf("the restored queue's wait is not said: %+v", q)
	}
	sub := submit(t, mgr2, sid, "new")
	if sub.Queued || sub.TurnID == second.TurnID || sub.TurnID == third.TurnID || sub.TurnID == first {
		t.Fatalf("new prompt %+v reuses a turn id", sub)
	}
	for range 3 {
		fe2.wait(t)
	}
	wantTurns := []string{sub.TurnID + ":new", second.TurnID + ":second", third.TurnID + ":third"}
	if got := fe2.started(); !slices.Equal(got, wantTurns) {
		t.Errorf("turns %v, want %v", got, wantTurns)
	}
}

// TestQueuedTurnTakesFreshSettings: before a waiting prompt starts on
// its own, BeforeQueued may put new defaults in force (the config files
// read again), and the queued turn runs with them, as a turn the user
// starts would.
func TestQueuedTurnTakesFreshSettings(t *testing.T) {
	m := &scriptedModel{}
	entered, release := make(chan struct{}), make(chan struct{})
	m.add(held(entered, release, say("m1", "one")), say("m2", "two"))
	rec := newRecorder()
	var mgr *Manager
	calls := 0
	mgr = managerWith(t, m, rec, func(o *Options) {
		o.BeforeQueued = func() {
			calls++
			if err := mgr.UpdateDefaults(func(d *Defaults) { d.ModelName = "fresh-model" }); err != nil {
				t.Error(err)
			}
		}
	})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "first"})); err != nil {
		t.Fatal(err)
	}
	waitClosed(t, entered, "the first model request")
	submit(t, mgr, info.SessionID, "second")
	close(release)
	for range 2 {
		if done := rec.wait(t); done.Status != event.StatusCompleted {
			t.Fatalf("turn %+v", done)
		}
	}
	if got := m.request(0).Model + "," + m.request(1).Model; got != "test-model,fresh-model" {
		t.Errorf("models of the requests %q, want the queued turn's on the fresh settings", got)
	}
	if calls != 1 {
		t.Errorf("BeforeQueued called %d times, want once (before the queued turn only)", calls)
	}
}

// TestCompactAndRewindRefusedWhileATurnRuns: unlike a prompt, a
// compaction and a rewind do not queue behind the running turn.
func TestCompactAndRewindRefusedWhileATurnRuns(t *testing.T) {
	mgr, _, rec, sid, first, release := busySession(t)
	if _, err := mgr.Compact(sid); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("compact during a turn: %v", err)
	}
	if _, err := mgr.Rewind(context.Background(), sid, first, ""); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("rewind during a turn: %v", err)
	}
	if items, _, _ := mgr.QueueOf(sid); len(items) != 0 {
		t.Errorf("queued %+v", items)
	}
	close(release)
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
}

// TestSendNowOfARestoredPrompt: a prompt of a restored queue (nobody
// waits for it) sent into a running turn gets a handle that ends with
// that turn.
func TestSendNowOfARestoredPrompt(t *testing.T) {
	mgr, _, _, sid, first, _ := busySession(t)
	queued := submit(t, mgr, sid, "second")
	if err := mgr.Interrupt(sid, first); err != nil {
		t.Fatal(err)
	}
	rec, err := mgr.Record(sid)
	if err != nil {
		t.Fatal(err)
	}
	rec.Turns = 1
	rec.Info.Cwd = t.TempDir()
	m2 := &scriptedModel{}
	entered, release := make(chan struct{}), make(chan struct{})
	m2.add(held(entered, release, say("m1", "one")), say("m2", "two"))
	fe2 := newRecorder()
	mgr2 := newTestManager(t, m2, fe2)
	if _, err := mgr2.Restore(rec); err != nil {
		t.Fatal(err)
	}
	running, err := startID(mgr2.StartTurn(sid, TurnInput{Prompt: "new"}))
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, entered, "the model request")
	res, err := mgr2.Steer(sid, TurnInput{}, queued.TurnID)
	if err != nil || res.TurnID != running || res.Turn == nil {
		t.Fatalf("send now of a restored prompt: %+v (%v)", res, err)
	}
	close(release)
	select {
	case <-res.Turn.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("the handle did not end with the turn")
	}
	if got := lastUser(m2.request(1)); got != steerNote+"second" {
		t.Errorf("the turn's next request ends with %q", got)
	}
}
