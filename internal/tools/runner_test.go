package tools

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
)

// fakeTool is a scriptable handler for runner tests.
type fakeTool struct {
	name     string
	mutating bool
	handle   func(ctx context.Context, call *Call) (Output, error)
}

func (f *fakeTool) Spec() Spec           { return Spec{Type: Function, Name: f.name} }
func (f *fakeTool) Kind() event.ToolKind { return event.KindOther }
func (f *fakeTool) Mutating(*Call) bool  { return f.mutating }
func (f *fakeTool) Title(c *Call) string { return f.name }
func (f *fakeTool) Handle(ctx context.Context, _ *Env, c *Call) (Output, error) {
	return f.handle(ctx, c)
}

func newRegistry(t *testing.T, hs ...Handler) *Registry {
	t.Helper()
	r, err := NewRegistry(hs...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

type finishLog struct {
	mu    sync.Mutex
	calls []string
}

func (l *finishLog) finish(c *Call, _ Handler, _ Result) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.calls = append(l.calls, c.CallID)
}

func call(id, name string) *Call {
	return &Call{CallID: id, Name: name, Type: Function, Arguments: json.RawMessage(`{}`)}
}

func TestRunReadOnlyCallsRunInParallel(t *testing.T) {
	// Each call waits until both have started: sequential execution would
	// deadlock (and fail on the context deadline).
	var started sync.WaitGroup
	started.Add(2)
	both := make(chan struct{})
	go func() { started.Wait(); close(both) }()
	reader := &fakeTool{name: "read", handle: func(ctx context.Context, c *Call) (Output, error) {
		started.Done()
		select {
		case <-both:
			return Output{Text: "ok " + c.CallID}, nil
		case <-ctx.Done():
			return Output{}, ctx.Err()
		}
	}}
	r := newRegistry(t, reader)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var log finishLog
	res := r.Run(ctx, &Env{}, []*Call{call("a", "read"), call("b", "read")}, log.finish)
	for i, want := range []string{"ok a", "ok b"} {
		if res[i].Output.Text != want || res[i].Output.Failed {
			t.Errorf("result %d = %+v, want %q", i, res[i], want)
		}
	}
	if len(log.calls) != 2 {
		t.Errorf("finish called for %v, want both calls", log.calls)
	}
}

func TestRunMutatingCallsRunOneAtATimeInOrder(t *testing.T) {
	var running, maxRunning atomic.Int32
	var order []string
	var mu sync.Mutex
	writer := &fakeTool{name: "write", mutating: true, handle: func(ctx context.Context, c *Call) (Output, error) {
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		mu.Lock()
		order = append(order, c.CallID)
		mu.Unlock()
		time.Sleep(time.Millisecond) // widen the window for overlap
		return Output{Text: "wrote"}, nil
	}}
	r := newRegistry(t, writer)
	var calls []*Call
	var want []string
	for _, id := range []string{"1", "2", "3", "4", "5", "6"} {
		calls = append(calls, call(id, "write"))
		want = append(want, id)
	}
	r.Run(context.Background(), &Env{}, calls, func(*Call, Handler, Result) {})
	if maxRunning.Load() != 1 {
		t.Errorf("%d mutating calls ran at once, want 1", maxRunning.Load())
	}
	if strings.Join(order, ",") != strings.Join(want, ",") {
		t.Errorf("order %v, want %v", order, want)
	}
}

func TestRunBadCallsBecomeModelErrors(t *testing.T) {
	panicky := &fakeTool{name: "panicky", handle: func(context.Context, *Call) (Output, error) { panic("boom") }}
	r := newRegistry(t, panicky, UpdatePlan{})
	calls := []*Call{
		call("1", "no_such_tool"),
		{CallID: "2", Name: "update_plan", Type: Function, Arguments: json.RawMessage(`{"plan": [`)},
		{CallID: "3", Name: "update_plan", Type: Function, Arguments: json.RawMessage(`[1,2]`)},
		call("4", "panicky"),
		{CallID: "5", Name: "update_plan", Type: Function, Arguments: json.RawMessage(`{"plan":[{"step":"x","status":"done"}]}`)},
	}
	res := r.Run(context.Background(), &Env{Emit: func(event.Payload) {}}, calls, func(*Call, Handler, Result) {})
	wants := []string{"unsupported call: no_such_tool", "failed to parse function arguments", "must be a JSON object", "internal error: boom", `/plan/0/status (argument ` + "`plan.0.status`" + `): value must be one of 'pending', 'in_progress', 'completed'; got "done"`}
	for i, want := range wants {
		if !res[i].Output.Failed || !strings.Contains(res[i].Output.Text, want) {
			t.Errorf("call %d: got %+v, want a failed output containing %q", i+1, res[i].Output, want)
		}
	}
}

func TestRunInterruptReturnsAtOnce(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	stubborn := &fakeTool{name: "stubborn", handle: func(context.Context, *Call) (Output, error) {
		<-release // ignores ctx on purpose
		return Output{Text: "late"}, nil
	}}
	quick := &fakeTool{name: "quick", handle: func(context.Context, *Call) (Output, error) {
		return Output{Text: "quick"}, nil
	}}
	writer := &fakeTool{name: "write", mutating: true, handle: func(ctx context.Context, c *Call) (Output, error) {
		<-ctx.Done()
		return Output{}, ctx.Err()
	}}
	r := newRegistry(t, stubborn, quick, writer)
	ctx, cancel := context.WithCancel(context.Background())
	var log finishLog
	quickDone := make(chan struct{})
	finish := func(c *Call, h Handler, res Result) {
		log.finish(c, h, res)
		if c.CallID == "q" {
			close(quickDone)
		}
	}
	go func() { <-quickDone; cancel() }()
	res := r.Run(ctx, &Env{}, []*Call{call("q", "quick"), call("s", "stubborn"), call("w1", "write"), call("w2", "write")}, finish)
	if res[0].Aborted || res[0].Output.Text != "quick" {
		t.Errorf("finished call lost its result: %+v", res[0])
	}
	for _, i := range []int{1, 2, 3} {
		if !res[i].Aborted || res[i].Output.Text != AbortedOutput {
			t.Errorf("call %d = %+v, want aborted", i, res[i])
		}
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	if len(log.calls) != 4 {
		t.Errorf("finish called for %v, want all four calls once", log.calls)
	}
}

func TestRegistryRejectsDuplicates(t *testing.T) {
	if _, err := NewRegistry(UpdatePlan{}, UpdatePlan{}); err == nil {
		t.Fatal("duplicate tool names accepted")
	}
}

func TestUpdatePlanEmitsPlan(t *testing.T) {
	var got []event.Payload
	env := &Env{Emit: func(p event.Payload) { got = append(got, p) }}
	args := `{"explanation":"why","plan":[{"step":"read","status":"completed"},{"step":"fix","status":"in_progress"},{"step":"test","status":"pending"}]}`
	out, err := UpdatePlan{}.Handle(context.Background(), env, &Call{Arguments: json.RawMessage(args)})
	if err != nil || out.Text != "Plan updated" {
		t.Fatalf("Handle = %+v, %v", out, err)
	}
	if len(got) != 1 {
		t.Fatalf("emitted %d events, want 1", len(got))
	}
	plan := got[0].(event.Plan)
	if plan.Explanation != "why" || len(plan.Steps) != 3 || plan.Steps[1] != (event.PlanStep{Step: "fix", Status: "in_progress"}) {
		t.Errorf("plan = %+v", plan)
	}
	two := `{"plan":[{"step":"a","status":"in_progress"},{"step":"b","status":"in_progress"}]}`
	if _, err := (UpdatePlan{}).Handle(context.Background(), env, &Call{Arguments: json.RawMessage(two)}); err == nil || !strings.Contains(err.Error(), "at most one") {
		t.Errorf("two in_progress steps: err = %v", err)
	}
}
