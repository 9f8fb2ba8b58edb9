package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// fakeHooks decides by functions and records what it was given.
type fakeHooks struct {
	before func(ToolUse) (string, error)
	after  func(ToolUse, ToolOutcome) (string, error)

	mu     sync.Mutex
	uses   []ToolUse
	afters []ToolOutcome
}

func (f *fakeHooks) BeforeTool(_ context.Context, use ToolUse) (string, error) {
	f.mu.Lock()
	f.uses = append(f.uses, use)
	f.mu.Unlock()
	if f.before == nil {
		return "", nil
	}
	return f.before(use)
}

func (f *fakeHooks) AfterTool(_ context.Context, use ToolUse, out ToolOutcome) (string, error) {
	f.mu.Lock()
	f.afters = append(f.afters, out)
	f.mu.Unlock()
	if f.after == nil {
		return "", nil
	}
	return f.after(use, out)
}

// countingTool is a mutating tool that counts its runs.
type countingTool struct {
	mu   sync.Mutex
	runs []string
}

func (c *countingTool) Spec() tools.Spec {
	return tools.Spec{Type: tools.Function, Name: "act", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (c *countingTool) Kind() event.ToolKind      { return event.KindEdit }
func (c *countingTool) Mutating(*tools.Call) bool { return true }
func (c *countingTool) Title(*tools.Call) string  { return "act" }
func (c *countingTool) Handle(_ context.Context, _ *tools.Env, call *tools.Call) (tools.Output, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.runs = append(c.runs, call.CallID)
	return tools.Output{Text: "acted " + call.CallID}, nil
}

func (c *countingTool) ran() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.runs...)
}

// hookManager is a manager with hooks h, the tool act, a logger writing
// to log, and frontend fe.
func hookManager(t *testing.T, m model.Client, fe Frontend, h ToolHooks, log *bytes.Buffer, act *countingTool) *Manager {
	t.Helper()
	reg, err := tools.NewRegistry(append(tools.Builtin(), act)...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "test-model"}, Model: m, Frontend: fe, Tools: reg, Cwd: t.TempDir(), Hooks: h,
		Logger: slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelInfo}))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	return mgr
}

// outputs maps call ids to the outputs a request sent the model.
func outputs(req *model.Request) map[string]string {
	out := map[string]string{}
	for _, it := range req.Input {
		if it.Type == model.ItemFunctionCallOutput || it.Type == model.ItemCustomToolCallOutput {
			out[it.CallID] = it.Output
		}
	}
	return out
}

// toolResults maps call ids to their toolResult events.
func toolResults(rec *recorder) map[string]event.ToolResult {
	out := map[string]event.ToolResult{}
	for _, ev := range rec.all() {
		if r, ok := ev.Payload.(event.ToolResult); ok {
			out[r.CallID] = r
		}
	}
	return out
}

// TestHookDeniesBeforeApproval: a denied command never reaches the
// approval (the user is not asked under untrusted), never runs, and the
// model reads the hook's reason as the output; the frontend sees the call
// rejected. The hook saw the call as the model made it.
func TestHookDeniesBeforeApproval(t *testing.T) {
	m := &scriptedModel{}
	args := `{"command":["touch","ran"]}`
	m.add(callTools(fcall("c1", "shell", args)), say("msg_2", "ok"))
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
	hooks := &fakeHooks{before: func(u ToolUse) (string, error) { return "no shell today: " + u.Name, nil }}
	var log bytes.Buffer
	mgr := hookManager(t, m, fe, hooks, &log, &countingTool{})
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Untrusted})
	if err != nil {
		t.Fatal(err)
	}
	turnID, _ := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "touch it"}))
	if done := fe.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	if fe.count() != 0 {
		t.Errorf("the user was asked %d times about a denied command", fe.count())
	}
	if _, err := os.Stat(filepath.Join(info.Cwd, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied command ran: %v", err)
	}
	if got := outputs(m.request(1))["c1"]; got != "no shell today: shell" {
		t.Errorf("the model read %q", got)
	}
	if r := toolResults(fe.recorder)["c1"]; r.Status != event.ToolRejected || r.Output != "no shell today: shell" {
		t.Errorf("toolResult %+v", r)
	}
	want := ToolUse{SessionID: info.SessionID, TurnID: turnID, Cwd: info.Cwd, CallID: "c1", Name: "shell", Kind: event.KindExecute, Arguments: json.RawMessage(args)}
	if len(hooks.uses) != 1 || !sameUse(hooks.uses[0], want) {
		t.Errorf("the hook saw %+v, want %+v", hooks.uses, want)
	}
	if len(hooks.afters) != 1 || hooks.afters[0].Ran || hooks.afters[0].Success || hooks.afters[0].Output != "no shell today: shell" {
		t.Errorf("after hook saw %+v", hooks.afters)
	}
}

func sameUse(a, b ToolUse) bool {
	return a.SessionID == b.SessionID && a.TurnID == b.TurnID && a.Cwd == b.Cwd && a.CallID == b.CallID &&
		a.Name == b.Name && a.Kind == b.Kind && bytes.Equal(a.Arguments, b.Arguments)
}

// TestHookAbortsTurn: an after hook's abort fails the turn with its
// reason once the call finished; the next call of the response does not
// run, every call still has its output in the history (the next turn's
// request is valid), and the hooks are not asked about the call that did
// not run.
func TestHookAbortsTurn(t *testing.T) {
	m := &scriptedModel{}
	m.add(callTools(fcall("c1", "act", `{}`), fcall("c2", "act", `{}`)))
	rec := newRecorder()
	hooks := &fakeHooks{after: func(u ToolUse, out ToolOutcome) (string, error) {
		if u.CallID == "c1" && out.Ran && out.Success && out.Output == "acted c1" {
			return "the after_tool_use hook /bin/audit stopped the turn: too much", nil
		}
		return "", nil
	}}
	act := &countingTool{}
	var log bytes.Buffer
	mgr := hookManager(t, m, rec, hooks, &log, act)
	info, _ := mgr.NewSession(SessionOptions{})
	startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "act twice"}))
	done := rec.wait(t)
	if done.Status != event.StatusFailed || done.Error != "the after_tool_use hook /bin/audit stopped the turn: too much" {
		t.Fatalf("turn %+v", done)
	}
	if got := act.ran(); len(got) != 1 || got[0] != "c1" {
		t.Errorf("the tool ran for %v, want c1 only", got)
	}
	if len(hooks.uses) != 1 || len(hooks.afters) != 1 {
		t.Errorf("the hooks were asked %d times before and %d after, want once each", len(hooks.uses), len(hooks.afters))
	}
	if r := toolResults(rec)["c2"]; r.Status != event.ToolRejected || !strings.Contains(r.Output, "not run: the turn was stopped: the after_tool_use hook /bin/audit") {
		t.Errorf("c2's toolResult %+v", r)
	}

	m.add(say("msg_3", "fine"))
	startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "again"}))
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("next turn %+v", done)
	}
	outs := outputs(m.request(1))
	if outs["c1"] != "acted c1" || !strings.HasPrefix(outs["c2"], "not run: the turn was stopped") {
		t.Errorf("history outputs %q", outs)
	}
}

// TestHookFailuresDoNotBlock: a hook that fails (its error) lets the call
// go on, and the failure is logged as a warning.
func TestHookFailuresDoNotBlock(t *testing.T) {
	m := &scriptedModel{}
	m.add(callTools(fcall("c1", "act", `{}`)), say("msg_2", "ok"))
	rec := newRecorder()
	hooks := &fakeHooks{
		before: func(ToolUse) (string, error) {
			return "", errors.New("before_tool_use hook /bin/check timed out after 10s")
		},
		after: func(ToolUse, ToolOutcome) (string, error) {
			return "", errors.New("after_tool_use hook /bin/audit failed (exit status 1)")
		},
	}
	act := &countingTool{}
	var log bytes.Buffer
	mgr := hookManager(t, m, rec, hooks, &log, act)
	info, _ := mgr.NewSession(SessionOptions{})
	startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "act"}))
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	if got := act.ran(); len(got) != 1 {
		t.Errorf("the tool ran %d times", len(got))
	}
	for _, want := range []string{"level=WARN msg=\"before_tool_use hook failed; the call goes on\"", "timed out after 10s",
		"level=WARN msg=\"after_tool_use hook failed\"", "exit status 1"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("log lacks %q:\n%s", want, log.String())
		}
	}
}

// TestHookSeesFreeformInput: the raw input of a freeform call reaches the
// hook as a JSON string.
func TestHookSeesFreeformInput(t *testing.T) {
	m := &scriptedModel{}
	patch := "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"
	m.add(callTools(model.Item{Type: model.ItemCustomToolCall, ID: "ct_1", CallID: "c1", Name: "apply_patch", Input: patch}), say("msg_2", "ok"))
	rec := newRecorder()
	hooks := &fakeHooks{before: func(ToolUse) (string, error) { return "no patches", nil }}
	var log bytes.Buffer
	mgr := hookManager(t, m, rec, hooks, &log, &countingTool{})
	info, _ := mgr.NewSession(SessionOptions{})
	startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "patch"}))
	rec.wait(t)
	var got string
	if len(hooks.uses) != 1 || json.Unmarshal(hooks.uses[0].Arguments, &got) != nil || got != patch || hooks.uses[0].Kind != event.KindEdit {
		t.Errorf("the hook saw %+v", hooks.uses)
	}
	if _, err := os.Stat(filepath.Join(info.Cwd, "a.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied patch was applied: %v", err)
	}
}
