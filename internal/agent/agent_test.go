package agent

import (
	"github.com/agent-ls/agent-ls/internal/workspace"

	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// scriptedModel answers each request with the next step of a script.
type scriptedModel struct {
	mu       sync.Mutex
	steps    []func(ctx context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error)
	requests []*model.Request
}

func (m *scriptedModel) Stream(ctx context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error) {
	m.mu.Lock()
	cp := *req
	cp.Input = append([]model.Item(nil), req.Input...)
	m.requests = append(m.requests, &cp)
	if len(m.steps) == 0 {
		m.mu.Unlock()
		return nil, errors.New("script exhausted")
	}
	step := m.steps[0]
	m.steps = m.steps[1:]
	m.mu.Unlock()
	return step(ctx, req, emit)
}

func (m *scriptedModel) add(steps ...func(ctx context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.steps = append(m.steps, steps...)
}

func (m *scriptedModel) request(i int) *model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[i]
}

// say streams text in chunks and finishes with one message item.
func say(id string, chunks ...string) func(context.Context, *model.Request, func(model.Event)) (*model.Response, error) {
	return func(ctx context.Context, _ *model.Request, emit func(model.Event)) (*model.Response, error) {
		for _, c := range chunks {
			emit(model.Event{Kind: model.TextDelta, ItemID: id, Delta: c})
		}
		it := model.Item{Type: model.ItemMessage, ID: id, Role: model.RoleAssistant, Text: strings.Join(chunks, "")}
		emit(model.Event{Kind: model.ItemDone, ItemID: id, Item: &it})
		return &model.Response{Output: []model.Item{it}, Usage: model.Usage{InputTokens: 10, OutputTokens: 3}}, nil
	}
}

// callTools finishes with function calls.
func callTools(calls ...model.Item) func(context.Context, *model.Request, func(model.Event)) (*model.Response, error) {
	return func(ctx context.Context, _ *model.Request, emit func(model.Event)) (*model.Response, error) {
		for i := range calls {
			emit(model.Event{Kind: model.ItemDone, ItemID: calls[i].ID, Item: &calls[i]})
		}
		return &model.Response{Output: calls}, nil
	}
}

func fcall(id, name, args string) model.Item {
	return model.Item{Type: model.ItemFunctionCall, ID: "fc_" + id, CallID: id, Name: name, Arguments: args}
}

// recorder is a Frontend that keeps every event.
type recorder struct {
	mu     sync.Mutex
	events []event.Event
	turnCh chan event.Event
}

func newRecorder() *recorder { return &recorder{turnCh: make(chan event.Event, 16)} }

func (r *recorder) Event(ev event.Event) {
	r.mu.Lock()
	r.events = append(r.events, ev)
	r.mu.Unlock()
	if ev.Type() == event.TypeTurnCompleted {
		r.turnCh <- ev
	}
}

func (r *recorder) wait(t *testing.T) event.TurnCompleted {
	t.Helper()
	select {
	case ev := <-r.turnCh:
		return ev.Payload.(event.TurnCompleted)
	case <-time.After(10 * time.Second):
		t.Fatal("turn did not complete")
		return event.TurnCompleted{}
	}
}

func (r *recorder) types(turnID string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, ev := range r.events {
		if ev.TurnID == turnID {
			out = append(out, string(ev.Type()))
		}
	}
	return out
}

func (r *recorder) all() []event.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event.Event(nil), r.events...)
}

// blockingTool waits until released or interrupted.
type blockingTool struct {
	started chan struct{}
}

func (b *blockingTool) Spec() tools.Spec {
	return tools.Spec{Type: tools.Function, Name: "wait", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (b *blockingTool) Kind() event.ToolKind      { return event.KindExecute }
func (b *blockingTool) Mutating(*tools.Call) bool { return true }
func (b *blockingTool) Title(*tools.Call) string  { return "wait" }
func (b *blockingTool) Handle(ctx context.Context, _ *tools.Env, _ *tools.Call) (tools.Output, error) {
	close(b.started)
	<-ctx.Done()
	return tools.Output{}, ctx.Err()
}

func newTestManager(t *testing.T, m model.Client, fe Frontend, extra ...tools.Handler) *Manager {
	t.Helper()
	return managerWith(t, m, fe, func(*Options) {}, extra...)
}

// managerWith makes a manager for a test, with the built-in tools and
// extra, a fresh cwd, and the options set changes.
func managerWith(t *testing.T, m model.Client, fe Frontend, set func(*Options), extra ...tools.Handler) *Manager {
	t.Helper()
	reg, err := tools.NewRegistry(append(tools.Builtin(), extra...)...)
	if err != nil {
		t.Fatal(err)
	}
	opts := Options{Defaults: Defaults{ModelName: "test-model"}, Model: m, Frontend: fe, Tools: reg, Cwd: t.TempDir()}
	set(&opts)
	mgr, err := NewManager(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	return mgr
}

func TestTurnStreamsAnswer(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("msg_1", "Hel", "lo"))
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	turnID, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "hi"}))
	if err != nil {
		t.Fatal(err)
	}
	done := rec.wait(t)
	if done.Status != event.StatusCompleted || done.LastMessage != "Hello" {
		t.Fatalf("turnCompleted = %+v", done)
	}
	got := strings.Join(rec.types(turnID), ",")
	want := "turnStarted,messageDelta,messageDelta,message,usage,turnCompleted"
	if got != want {
		t.Errorf("events %s, want %s", got, want)
	}
	for i, ev := range rec.all() {
		if ev.Seq != int64(i+1) || ev.SessionID != info.SessionID {
			t.Errorf("event %d has seq %d session %s", i, ev.Seq, ev.SessionID)
		}
	}
	req := m.request(0)
	if req.PromptCacheKey != info.SessionID || req.Instructions != baseInstructions {
		t.Errorf("request cache key %q, instructions set %v", req.PromptCacheKey, req.Instructions != "")
	}
	last := req.Input[len(req.Input)-1]
	if last.Role != model.RoleUser || last.Text != "hi" {
		t.Errorf("last input item = %+v", last)
	}
	if !strings.Contains(req.Input[len(req.Input)-2].Text, "<environment_context>") {
		t.Errorf("no environment context before the prompt: %+v", req.Input)
	}
}

func TestTurnRunsToolsAndFeedsResultsBack(t *testing.T) {
	m := &scriptedModel{}
	plan := `{"plan":[{"step":"look","status":"in_progress"}]}`
	m.add(
		callTools(fcall("c1", "update_plan", plan), fcall("c2", "nope", `{}`), fcall("c3", "update_plan", `{not json`)),
		say("msg_2", "done"),
	)
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, _ := mgr.NewSession(SessionOptions{})
	turnID, _ := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "plan it"}))
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	types := rec.types(turnID)
	if n := strings.Count(strings.Join(types, ","), "toolCall"); n != 3 {
		t.Errorf("%d toolCall events in %v", n, types)
	}
	if n := strings.Count(strings.Join(types, ","), "toolResult"); n != 3 {
		t.Errorf("%d toolResult events in %v", n, types)
	}
	if !strings.Contains(strings.Join(types, ","), "plan") {
		t.Errorf("no plan event in %v", types)
	}
	second := m.request(1)
	outputs := map[string]model.Item{}
	for _, it := range second.Input {
		if it.Type == model.ItemFunctionCallOutput {
			outputs[it.CallID] = it
		}
	}
	if outputs["c1"].Output != "Plan updated" {
		t.Errorf("c1 output %q", outputs["c1"].Output)
	}
	if !strings.Contains(outputs["c2"].Output, "unsupported call: nope") {
		t.Errorf("c2 output %q", outputs["c2"].Output)
	}
	if !strings.Contains(outputs["c3"].Output, "failed to parse function arguments") {
		t.Errorf("c3 output %q", outputs["c3"].Output)
	}
}

func TestTurnRequestLimit(t *testing.T) {
	m := &scriptedModel{}
	for i := 0; i < 3; i++ {
		m.add(callTools(fcall("c", "update_plan", `{"plan":[]}`)))
	}
	rec := newRecorder()
	reg, _ := tools.NewRegistry(tools.Builtin()...)
	mgr, err := NewManager(Options{Defaults: Defaults{MaxRequests: 3}, Model: m, Frontend: rec, Tools: reg, Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Close()
	info, _ := mgr.NewSession(SessionOptions{})
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "loop"})
	done := rec.wait(t)
	if done.Status != event.StatusFailed || !strings.Contains(done.Error, "limit of 3 model requests") {
		t.Fatalf("turn %+v", done)
	}
}

func TestTurnModelErrorFails(t *testing.T) {
	m := &scriptedModel{}
	m.add(func(context.Context, *model.Request, func(model.Event)) (*model.Response, error) {
		return nil, errors.New("no API key: set OPENAI_API_KEY")
	})
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, _ := mgr.NewSession(SessionOptions{})
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "x"})
	if done := rec.wait(t); done.Status != event.StatusFailed || !strings.Contains(done.Error, "OPENAI_API_KEY") {
		t.Fatalf("turn %+v", done)
	}
}

func TestInterruptWhileStreamingThenNextTurnWorks(t *testing.T) {
	m := &scriptedModel{}
	streaming := make(chan struct{})
	m.add(func(ctx context.Context, _ *model.Request, emit func(model.Event)) (*model.Response, error) {
		emit(model.Event{Kind: model.TextDelta, ItemID: "m1", Delta: "partial"})
		close(streaming)
		<-ctx.Done()
		return nil, ctx.Err()
	}, say("m2", "second"))
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, _ := mgr.NewSession(SessionOptions{})
	turnID, _ := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "long"}))
	<-streaming
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "again"}); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("second StartTurn err = %v, want ErrTurnRunning", err)
	}
	if err := mgr.Interrupt(info.SessionID, turnID); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusInterrupted {
		t.Fatalf("turn %+v", done)
	}
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "again"}); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted || done.LastMessage != "second" {
		t.Fatalf("next turn %+v", done)
	}
}

func TestInterruptDuringToolCallKeepsHistoryValid(t *testing.T) {
	m := &scriptedModel{}
	m.add(callTools(fcall("c1", "update_plan", `{"plan":[]}`), fcall("c2", "wait", `{}`)), say("m2", "ok"))
	rec := newRecorder()
	blocker := &blockingTool{started: make(chan struct{})}
	mgr := newTestManager(t, m, rec, blocker)
	info, _ := mgr.NewSession(SessionOptions{})
	turnID, _ := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "go"}))
	<-blocker.started
	if err := mgr.Interrupt(info.SessionID, ""); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusInterrupted {
		t.Fatalf("turn %+v", done)
	}
	if types := strings.Join(rec.types(turnID), ","); strings.Count(types, "toolResult") != 2 {
		t.Errorf("events %s: want a toolResult for both calls", types)
	}
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "next"})
	rec.wait(t)
	// Every call in the history has its output, so the API accepts it.
	calls, outs := map[string]bool{}, map[string]string{}
	for _, it := range m.request(1).Input {
		switch it.Type {
		case model.ItemFunctionCall:
			calls[it.CallID] = true
		case model.ItemFunctionCallOutput:
			outs[it.CallID] = it.Output
		}
	}
	for id := range calls {
		if _, ok := outs[id]; !ok {
			t.Errorf("call %s has no output in the next request", id)
		}
	}
	if outs["c2"] != tools.AbortedOutput {
		t.Errorf("interrupted call output %q", outs["c2"])
	}
}

func TestSessionsRunConcurrently(t *testing.T) {
	m := &scriptedModel{}
	both := make(chan struct{})
	var once sync.Once
	var arrived sync.WaitGroup
	arrived.Add(2)
	go func() { arrived.Wait(); once.Do(func() { close(both) }) }()
	wait := func(ctx context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error) {
		arrived.Done()
		select {
		case <-both:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return say("m", "ok")(ctx, req, emit)
	}
	m.add(wait, wait)
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	a, _ := mgr.NewSession(SessionOptions{})
	b, _ := mgr.NewSession(SessionOptions{})
	mgr.StartTurn(a.SessionID, TurnInput{Prompt: "a"})
	mgr.StartTurn(b.SessionID, TurnInput{Prompt: "b"})
	for i := 0; i < 2; i++ {
		if done := rec.wait(t); done.Status != event.StatusCompleted {
			t.Fatalf("turn %+v", done)
		}
	}
}

func TestUnknownSessionAndBadPolicy(t *testing.T) {
	mgr := newTestManager(t, &scriptedModel{}, newRecorder())
	if _, err := mgr.StartTurn("nope", TurnInput{Prompt: "x"}); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("err = %v", err)
	}
	if _, err := mgr.NewSession(SessionOptions{ApprovalPolicy: "sometimes"}); err == nil || !strings.Contains(err.Error(), "on-request") {
		t.Errorf("err = %v", err)
	}
	if err := mgr.Interrupt("nope", ""); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("err = %v", err)
	}
}

func TestProjectDocsChain(t *testing.T) {
	root := t.TempDir()
	sub := filepath.Join(root, "a", "b")
	must(t, os.MkdirAll(sub, 0o755))
	must(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	write(t, filepath.Join(root, "AGENTS.md"), "root rules")
	write(t, filepath.Join(root, "a", "AGENTS.md"), "a rules")
	write(t, filepath.Join(root, "a", "AGENTS.override.md"), "a override")
	write(t, filepath.Join(sub, "AGENTS.md"), "   ") // empty: skipped
	// Above the git root: must not be read.
	write(t, filepath.Join(filepath.Dir(root), "AGENTS.md"), "outside")

	got := projectDocs(tools.DiskView{}, sub, 32<<10)
	if got != "root rules\n\na override" {
		t.Errorf("chain = %q", got)
	}
	if got := projectDocs(tools.DiskView{}, sub, 12); got != "root rules\n\na " {
		t.Errorf("budget 12 = %q", got)
	}
	if got := projectDocs(tools.DiskView{}, sub, -1); got != "" {
		t.Errorf("disabled = %q", got)
	}
}

func TestUserMessageCarriesContext(t *testing.T) {
	in := TurnInput{Prompt: "Fix this", Context: []ContextItem{{
		Path: "/ws/pkg/x.go", StartLine: 3, EndLine: 4, Text: "a := 1\n```\n", Diagnostics: []string{"x.go:3: unused"},
	}}}
	got := userMessage(in, "/ws").Text
	for _, want := range []string{"Fix this", "Selected from pkg/x.go, lines 3-4:", "````go\na := 1\n```\n````", "- x.go:3: unused"} {
		if !strings.Contains(got, want) {
			t.Errorf("message %q lacks %q", got, want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	must(t, os.WriteFile(path, []byte(text), 0o644))
}

// startID is StartTurn's result as a turn id.
func startID(h *Turn, err error) (string, error) {
	if err != nil {
		return "", err
	}
	return h.ID(), nil
}

// RequestApproval: the recorder has nobody to ask.
func (r *recorder) RequestApproval(context.Context, *ApprovalRequest) (string, error) {
	return RejectOnce, nil
}

// ApplyChanges leaves changes to the agent (written to disk).
func (r *recorder) ApplyChanges(context.Context, *workspace.ChangeSet) (bool, error) {
	return false, nil
}
