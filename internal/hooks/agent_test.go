package hooks

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
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
	"github.com/agent-ls/agent-ls/internal/testenv"
	"github.com/agent-ls/agent-ls/internal/tools"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// TestMain lets the test binary serve as the sandbox helper, so that a
// command a hook failed to deny really runs (and the tests see it did),
// and keeps change-set journals out of $HOME.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox" {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	os.Exit(testenv.RunWithPrivateState(m))
}

// calling is a model that answers the first request with calls and every
// later one with a message, recording the requests.
type calling struct {
	calls []model.Item

	mu       sync.Mutex
	requests []*model.Request
}

func (m *calling) Stream(_ context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error) {
	m.mu.Lock()
	cp := *req
	cp.Input = append([]model.Item(nil), req.Input...)
	m.requests = append(m.requests, &cp)
	first := len(m.requests) == 1
	m.mu.Unlock()
	out := []model.Item{{Type: model.ItemMessage, ID: "msg", Role: model.RoleAssistant, Text: "done"}}
	if first {
		out = m.calls
	}
	for i := range out {
		emit(model.Event{Kind: model.ItemDone, ItemID: out[i].ID, Item: &out[i]})
	}
	return &model.Response{Output: out}, nil
}

// output is what the second request told the model about call id.
func (m *calling) output(t *testing.T, id string) string {
	t.Helper()
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.requests) < 2 {
		t.Fatalf("the model got %d requests", len(m.requests))
	}
	for _, it := range m.requests[1].Input {
		if it.Type == model.ItemFunctionCallOutput && it.CallID == id {
			return it.Output
		}
	}
	t.Fatalf("no output for %s", id)
	return ""
}

func call(id, name, args string) model.Item {
	return model.Item{Type: model.ItemFunctionCall, ID: "fc_" + id, CallID: id, Name: name, Arguments: args}
}

// frontend records the events and asks nobody.
type frontend struct {
	mu     sync.Mutex
	events []event.Event
	done   chan event.TurnCompleted
}

func (f *frontend) Event(ev event.Event) {
	f.mu.Lock()
	f.events = append(f.events, ev)
	f.mu.Unlock()
	if c, ok := ev.Payload.(event.TurnCompleted); ok {
		f.done <- c
	}
}

func (f *frontend) RequestApproval(context.Context, *agent.ApprovalRequest) (string, error) {
	return agent.RejectOnce, nil
}

func (f *frontend) ApplyChanges(context.Context, *workspace.ChangeSet) (bool, error) {
	return false, nil
}

func (f *frontend) result(id string) event.ToolResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, ev := range f.events {
		if r, ok := ev.Payload.(event.ToolResult); ok && r.CallID == id {
			return r
		}
	}
	return event.ToolResult{}
}

// turn runs one turn whose model makes calls, with hooks, in a
// danger-full-access session that never asks (commands run at once), and
// returns how it ended, the model, the frontend and the log.
func turn(t *testing.T, hooks []Hook, calls ...model.Item) (event.TurnCompleted, *calling, *frontend, string, string) {
	t.Helper()
	r := newRunner(t, hooks...)
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	m := &calling{calls: calls}
	fe := &frontend{done: make(chan event.TurnCompleted, 1)}
	var log bytes.Buffer
	var logMu sync.Mutex
	cwd := t.TempDir()
	mgr, err := agent.NewManager(agent.Options{Model: m, Frontend: fe, Tools: reg, Cwd: cwd, Hooks: r,
		Logger: slog.New(slog.NewTextHandler(&lockedWriter{w: &log, mu: &logMu}, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer mgr.Close()
	info, err := mgr.NewSession(agent.SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.StartTurn(info.SessionID, agent.TurnInput{Prompt: "go"}); err != nil {
		t.Fatal(err)
	}
	var done event.TurnCompleted
	select {
	case done = <-fe.done:
	case <-time.After(60 * time.Second):
		t.Fatal("the turn did not end")
	}
	logMu.Lock()
	defer logMu.Unlock()
	return done, m, fe, log.String(), cwd
}

type lockedWriter struct {
	w  *bytes.Buffer
	mu *sync.Mutex
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// TestAgentHookDenies: a before hook for shell denies a command: it does
// not run, the model reads the hook's reason, the frontend sees the call
// rejected, and the hook read the call on its standard input.
func TestAgentHookDenies(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "stdin.json")
	hook := script(t, `cat > "`+seen+`"; echo "rm is not allowed here" >&2; exit 2`)
	done, m, fe, _, cwd := turn(t, []Hook{{Event: BeforeToolUse, Tools: []string{"shell"}, Command: []string{hook}}},
		call("c1", "shell", `{"command":["touch","ran"]}`))
	if done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	if _, err := os.Stat(filepath.Join(cwd, "ran")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the denied command ran: %v", err)
	}
	if got := m.output(t, "c1"); got != "rm is not allowed here" {
		t.Errorf("the model read %q", got)
	}
	if r := fe.result("c1"); r.Status != event.ToolRejected || r.Output != "rm is not allowed here" {
		t.Errorf("toolResult %+v", r)
	}
	var in struct {
		Event, Cwd string
		Tool       struct {
			Name, Kind string
			Arguments  json.RawMessage
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, seen)), &in); err != nil {
		t.Fatal(err)
	}
	if in.Event != "before_tool_use" || in.Cwd != cwd || in.Tool.Name != "shell" || in.Tool.Kind != "execute" || string(in.Tool.Arguments) != `{"command":["touch","ran"]}` {
		t.Errorf("the hook read %+v", in)
	}
}

// TestAgentHookAllows: a before hook that exits 0 lets the command run,
// and an after hook reads its result.
func TestAgentHookAllows(t *testing.T) {
	seen := filepath.Join(t.TempDir(), "stdin.json")
	done, m, _, _, cwd := turn(t, []Hook{
		{Event: BeforeToolUse, Command: []string{script(t, `exit 0`)}},
		{Event: AfterToolUse, Command: []string{script(t, `cat > "`+seen+`"`)}},
	}, call("c1", "shell", `{"command":["sh","-c","touch ran; echo made it"]}`))
	if done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	if _, err := os.Stat(filepath.Join(cwd, "ran")); err != nil {
		t.Errorf("the allowed command did not run: %v (output %q)", err, m.output(t, "c1"))
	}
	var in struct {
		Result struct {
			Ran, Success bool
			Output       string
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, seen)), &in); err != nil {
		t.Fatal(err)
	}
	if !in.Result.Ran || !in.Result.Success || !strings.Contains(in.Result.Output, "made it") {
		t.Errorf("the after hook read %+v", in.Result)
	}
}

// TestAgentHookAborts: an after hook exiting 2 fails the turn with its
// reason, naming the hook; the call's result stays in the history.
func TestAgentHookAborts(t *testing.T) {
	hook := script(t, `echo "the plan mentions production" >&2; exit 2`)
	done, _, fe, _, _ := turn(t, []Hook{{Event: AfterToolUse, Command: []string{hook}}},
		call("c1", "update_plan", `{"plan":[{"step":"deploy to production","status":"pending"}]}`))
	if done.Status != event.StatusFailed || done.Error != "the after_tool_use hook "+hook+" stopped the turn: the plan mentions production" {
		t.Fatalf("turn %+v", done)
	}
	if r := fe.result("c1"); r.Status != event.ToolCompleted {
		t.Errorf("the call's own result: %+v", r)
	}
}

// TestAgentHookTimeoutAndMissing: a hook that times out and one that
// cannot start are logged as warnings, and the call goes on.
func TestAgentHookTimeoutAndMissing(t *testing.T) {
	slow := script(t, `exec sleep 300`)
	missing := filepath.Join(t.TempDir(), "gone")
	done, m, _, log, _ := turn(t, []Hook{
		{Event: BeforeToolUse, Command: []string{slow}, Timeout: 200 * time.Millisecond},
		{Event: BeforeToolUse, Command: []string{missing}},
	}, call("c1", "update_plan", `{"plan":[]}`))
	if done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	if got := m.output(t, "c1"); got != "Plan updated" {
		t.Errorf("the call did not go on: %q", got)
	}
	for _, want := range []string{`level=WARN msg="before_tool_use hook failed; the call goes on"`, "timed out after 200ms", missing} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
}

// TestAgentHookFilter: a hook for shell does not run for read_file.
func TestAgentHookFilter(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := script(t, `touch "`+marker+`"; exit 2`)
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"file_path": file})
	done, m, _, _, _ := turn(t, []Hook{{Event: BeforeToolUse, Tools: []string{"shell"}, Command: []string{hook}}},
		call("c1", "read_file", string(args)))
	if done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	if got := m.output(t, "c1"); !strings.Contains(got, "hello") {
		t.Errorf("read_file output %q", got)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the shell hook ran for read_file: %v", err)
	}
}
