package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// runTurn runs one turn in the session and waits for it to end.
func runTurn(t *testing.T, mgr *Manager, sessionID, prompt string) TurnResult {
	t.Helper()
	turn, err := mgr.StartTurn(sessionID, TurnInput{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	<-turn.Done()
	return turn.Result()
}

// TestUpdateDefaultsReachEverySession: new defaults reach the sessions
// started after the update, and an existing session at its next turn, in
// its requests and a new environment context after the old one (the
// history's start stays the same, for the prompt cache), except what the
// session chose itself when it started; a bad update changes nothing.
func TestUpdateDefaultsReachEverySession(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("a1", "one"), say("b1", "two"), say("a2", "three"), say("c1", "four"))
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "gpt-5-before", Provider: "one"}, Model: m, Frontend: newRecorder(), Tools: reg, Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	before, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pinned, err := mgr.NewSession(SessionOptions{Model: "gpt-5-pinned", ApprovalPolicy: policy.Untrusted})
	if err != nil {
		t.Fatal(err)
	}
	if r := runTurn(t, mgr, before.SessionID, "go"); r.Status != event.StatusCompleted {
		t.Fatalf("first turn: %+v", r)
	}

	if err := mgr.UpdateDefaults(func(d *Defaults) {
		d.ModelName, d.Provider, d.ApprovalPolicy, d.SandboxMode = "gpt-5-after", "two", policy.Never, policy.ReadOnly
		d.ReasoningEffort, d.MaxRequests = "high", 7
	}); err != nil {
		t.Fatal(err)
	}
	if err := mgr.UpdateDefaults(func(d *Defaults) { d.ModelName, d.ApprovalPolicy = "gpt-5-bad", "sometimes" }); err == nil || !strings.Contains(err.Error(), "sometimes") {
		t.Errorf("bad approval policy: %v", err)
	}
	if d := mgr.Defaults(); d.ModelName != "gpt-5-after" || d.ApprovalPolicy != policy.Never || d.ReasoningSummary != "auto" || d.MaxRequests != 7 {
		t.Errorf("defaults after a good and a bad update: %+v", d)
	}
	after, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Model != "gpt-5-after" || after.Provider != "two" || after.ApprovalPolicy != policy.Never || after.SandboxMode != policy.ReadOnly {
		t.Errorf("session started after the update: %+v", after)
	}
	if before.Model != "gpt-5-before" || before.Provider != "one" || before.ApprovalPolicy != policy.OnRequest {
		t.Errorf("session started before the update: %+v", before)
	}

	for _, id := range []string{after.SessionID, before.SessionID, pinned.SessionID} {
		if r := runTurn(t, mgr, id, "go"); r.Status != event.StatusCompleted {
			t.Fatalf("turn in %s: %+v", id, r)
		}
	}
	for i, want := range []struct {
		model, effort, policy, provider string
		contexts                        int
	}{
		{"gpt-5-before", "medium", "on-request", "one", 1},
		{"gpt-5-after", "high", "never", "two", 1},
		{"gpt-5-after", "high", "never", "two", 2}, // the older session's next turn
		{"gpt-5-pinned", "high", "untrusted", "two", 1},
	} {
		req := m.request(i)
		var envs []string
		for _, it := range req.Input {
			if strings.Contains(it.Text, "<environment_context>") {
				envs = append(envs, it.Text)
			}
		}
		env := envs[len(envs)-1]
		if req.Model != want.model || req.ReasoningEffort != want.effort || len(envs) != want.contexts ||
			!strings.Contains(env, "<approval_policy>"+want.policy+"<") || !strings.Contains(env, "<model_provider>"+want.provider+"<") {
			t.Errorf("request %d: model %q, effort %q, %d environment contexts, the last\n%s\nwant %+v", i, req.Model, req.ReasoningEffort, len(envs), env, want)
		}
	}
	if first, second := m.request(0).Input, m.request(2).Input; !strings.Contains(second[len(first)-2].Text, "<model>gpt-5-before<") {
		t.Errorf("the older session's history lost its first environment context: %+v", second)
	}
}

// TestClientForPicksEachSessionsClient: each session talks to the client
// picked for it when it started, and a client that cannot be made fails
// the session's start.
func TestClientForPicksEachSessionsClient(t *testing.T) {
	clients := map[string]*scriptedModel{"local-a": {}, "local-b": {}}
	clients["local-a"].add(say("a", "from a"))
	clients["local-b"].add(say("b", "from b"))
	var asked []string
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "local-a"}, Frontend: newRecorder(), Tools: reg, Cwd: t.TempDir(),
		ClientFor: func(info SessionInfo) (model.Client, error) {
			asked = append(asked, info.Model)
			if c, ok := clients[info.Model]; ok {
				return c, nil
			}
			return nil, errors.New("no provider serves " + info.Model)
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	a, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := mgr.NewSession(SessionOptions{Model: "local-b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.NewSession(SessionOptions{Model: "elsewhere"}); err == nil || !strings.Contains(err.Error(), "no provider serves elsewhere") {
		t.Errorf("a session without a client: %v", err)
	}
	if got := strings.Join(asked, ","); got != "local-a,local-b,elsewhere" {
		t.Errorf("ClientFor asked for %s", got)
	}
	if r := runTurn(t, mgr, b.SessionID, "hi"); r.LastMessage != "from b" {
		t.Errorf("session b: %+v", r)
	}
	if r := runTurn(t, mgr, a.SessionID, "hi"); r.LastMessage != "from a" {
		t.Errorf("session a: %+v", r)
	}
	for name, c := range clients {
		if len(c.requests) != 1 || c.requests[0].Model != name {
			t.Errorf("client %s got %d requests", name, len(c.requests))
		}
	}
	if _, err := NewManager(Options{Frontend: newRecorder(), Tools: reg}); err == nil {
		t.Error("a manager without Model or ClientFor")
	}
}

// TestToolsReachTheModelAsTheyAre: the agent offers apply_patch as the
// freeform tool it is, grammar included, to every model, and says which
// models take function tools only; how it travels is the client's affair.
func TestToolsReachTheModelAsTheyAre(t *testing.T) {
	for name, functionsOnly := range map[string]bool{"gpt-5-codex": false, "llama3": true, "o3": true} {
		m := &scriptedModel{}
		m.add(say("m", "ok"))
		rec := newRecorder()
		mgr := newTestManager(t, m, rec)
		info, err := mgr.NewSession(SessionOptions{Model: name})
		if err != nil {
			t.Fatal(err)
		}
		runTurn(t, mgr, info.SessionID, "hi")
		req := m.request(0)
		if req.FunctionToolsOnly != functionsOnly {
			t.Errorf("%s: FunctionToolsOnly %v", name, req.FunctionToolsOnly)
		}
		var patch *model.Tool
		for i := range req.Tools {
			if req.Tools[i].Name == "apply_patch" {
				patch = &req.Tools[i]
			}
		}
		if patch == nil || patch.Type != model.ToolCustom || patch.Grammar == nil || patch.Grammar.Syntax != "lark" ||
			!strings.Contains(patch.Grammar.Definition, "begin_patch") {
			t.Errorf("%s: apply_patch offered as %+v", name, patch)
		}
	}
}

// TestUpdateSessionChangesOneSession: a session's own settings change
// from its next turn (the model learns them), a bad one changes nothing,
// and other sessions keep theirs.
func TestUpdateSessionChangesOneSession(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("a1", "one"), say("a2", "two"), say("b1", "three"))
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "gpt-5"}, Model: m, Frontend: newRecorder(), Tools: reg, Cwd: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	a, _ := mgr.NewSession(SessionOptions{})
	b, _ := mgr.NewSession(SessionOptions{})
	if r := runTurn(t, mgr, a.SessionID, "go"); r.Status != event.StatusCompleted {
		t.Fatalf("first turn: %+v", r)
	}
	if _, err := mgr.UpdateSession(a.SessionID, func(o *SessionOptions) { o.ApprovalPolicy = "sometimes" }); err == nil {
		t.Error("a bad approval policy was taken")
	}
	info, err := mgr.UpdateSession(a.SessionID, func(o *SessionOptions) {
		o.ApprovalPolicy, o.SandboxMode, o.ReasoningEffort, o.Cwd = policy.Never, policy.ReadOnly, "high", "/elsewhere"
	})
	if err != nil || info.ApprovalPolicy != policy.Never || info.SandboxMode != policy.ReadOnly || info.Cwd != a.Cwd {
		t.Fatalf("UpdateSession: %+v %v", info, err)
	}
	if _, err := mgr.UpdateSession("s-nope", func(*SessionOptions) {}); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("unknown session: %v", err)
	}
	runTurn(t, mgr, a.SessionID, "again")
	runTurn(t, mgr, b.SessionID, "other")
	second, other := m.request(1), m.request(2)
	last := second.Input[len(second.Input)-2].Text
	if second.ReasoningEffort != "high" || !strings.Contains(last, "<approval_policy>never<") || !strings.Contains(last, "<sandbox_mode>read-only<") {
		t.Errorf("the next turn: effort %q, context before the prompt\n%s", second.ReasoningEffort, last)
	}
	if other.ReasoningEffort == "high" {
		t.Errorf("the other session took the change: %q", other.ReasoningEffort)
	}
}

// Forget ends a running turn and drops the session; Restore brings it
// back from its record under the same id.
func TestForget(t *testing.T) {
	m := &scriptedModel{}
	m.add(func(ctx context.Context, _ *model.Request, _ func(model.Event)) (*model.Response, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, _ := mgr.NewSession(SessionOptions{})
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "hi"}); err != nil {
		t.Fatal(err)
	}
	kept, _ := mgr.Record(info.SessionID)
	if err := mgr.Forget(info.SessionID); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusInterrupted {
		t.Errorf("the running turn ended %s", done.Status)
	}
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "again"}); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("a turn in a forgotten session: %v", err)
	}
	if err := mgr.Forget(info.SessionID); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("forgetting twice: %v", err)
	}
	if _, err := mgr.Restore(kept); err != nil {
		t.Errorf("restoring a forgotten session: %v", err)
	}
}

// preconnectingModel counts Preconnect calls.
type preconnectingModel struct {
	*scriptedModel
	mu    sync.Mutex
	calls int
}

func (p *preconnectingModel) Preconnect() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.calls++
}

// TestNewSessionPreconnects: a new session asks its client to open its
// connection ahead of the first request; a client that cannot is left
// alone.
func TestNewSessionPreconnects(t *testing.T) {
	m := &preconnectingModel{scriptedModel: &scriptedModel{}}
	m.add(say("m", "ok"))
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "gpt-5-codex"}, Frontend: newRecorder(), Tools: reg, Cwd: t.TempDir(),
		ClientFor: func(SessionInfo) (model.Client, error) { return m, nil }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m.calls != 1 {
		t.Fatalf("%d Preconnect calls after NewSession, want 1", m.calls)
	}
	if r := runTurn(t, mgr, info.SessionID, "hi"); r.LastMessage != "ok" {
		t.Fatalf("turn: %+v", r)
	}
	// A client without Preconnect starts sessions as before.
	plain := newTestManager(t, &scriptedModel{}, newRecorder())
	if _, err := plain.NewSession(SessionOptions{}); err != nil {
		t.Fatal(err)
	}
}
