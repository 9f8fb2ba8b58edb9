package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// extTool is a tool as an MCP server would describe it.
type extTool struct {
	name   string
	params string
	handle func() (tools.Output, error)
}

func (e extTool) Spec() tools.Spec {
	return tools.Spec{Type: tools.Function, Name: e.name, Parameters: json.RawMessage(e.params)}
}
func (extTool) Kind() event.ToolKind       { return event.KindOther }
func (extTool) Mutating(*tools.Call) bool  { return false }
func (e extTool) Title(*tools.Call) string { return e.name }
func (e extTool) Handle(context.Context, *tools.Env, *tools.Call) (tools.Output, error) {
	return e.handle()
}

func toolNames(req *model.Request) []string {
	var names []string
	for _, tl := range req.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// TestEachRequestTakesTheToolsRegisteredNow: a source registered while a
// turn runs is offered from the turn's next model request on, sorted by
// name with its schema sanitized, and its calls run; a panic in a tool is
// logged through the manager's logger with the session and turn.
func TestEachRequestTakesTheToolsRegisteredNow(t *testing.T) {
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	lookup := extTool{name: "aaa_lookup", params: `{"$schema": "http://json-schema.org/draft-07/schema#", "properties": {"id": {"type": "integer"}}, "required": ["id"]}`,
		handle: func() (tools.Output, error) { return tools.Output{Text: "found it"}, nil }}
	boom := extTool{name: "boom", params: `{}`, handle: func() (tools.Output, error) { panic("kaboom") }}
	m := &scriptedModel{}
	m.add(
		func(ctx context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error) {
			// An MCP server comes up while the model answers.
			if err := reg.Register(tools.Source{Name: "srv", External: true}, lookup, boom); err != nil {
				return nil, err
			}
			return callTools(fcall("c1", "aaa_lookup", `{"id": 1}`))(ctx, req, emit)
		},
		callTools(fcall("c2", "aaa_lookup", `{"id": 2}`), fcall("c3", "boom", `{}`)),
		say("m3", "done"),
	)
	var logs bytes.Buffer
	rec := newRecorder()
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "test-model"}, Model: m, Frontend: rec, Tools: reg, Cwd: t.TempDir(),
		Logger: slog.New(slog.NewJSONHandler(&logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	info, _ := mgr.NewSession(SessionOptions{})
	turnID, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "look it up"}))
	if err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}

	first, second := m.request(0), m.request(1)
	if names := toolNames(first); slices.Contains(names, "aaa_lookup") || !slices.IsSorted(names) {
		t.Errorf("first request's tools: %v", names)
	}
	names := toolNames(second)
	if !slices.IsSorted(names) || names[0] != "aaa_lookup" || !slices.Contains(names, "boom") {
		t.Errorf("second request's tools: %v", names)
	}
	if got, want := string(second.Tools[0].Parameters), `{"properties":{"id":{"type":"number"}},"required":["id"],"type":"object"}`; got != want {
		t.Errorf("external schema offered as %s, want %s", got, want)
	}
	outputs := map[string]string{}
	for _, it := range m.request(2).Input {
		if it.Type == model.ItemFunctionCallOutput {
			outputs[it.CallID] = it.Output
		}
	}
	// c1 answered a request that did not offer the tool yet.
	if !strings.Contains(outputs["c1"], "unsupported call: aaa_lookup") || outputs["c2"] != "found it" ||
		outputs["c3"] != "tool boom failed with an internal error: kaboom" {
		t.Errorf("outputs %q", outputs)
	}
	var panicked map[string]any
	for line := range strings.Lines(logs.String()) {
		var r map[string]any
		if json.Unmarshal([]byte(line), &r) == nil && r["msg"] == "tool call panicked" {
			panicked = r
		}
	}
	if panicked == nil || panicked["session"] != info.SessionID || panicked["turn"] != turnID || panicked["tool"] != "boom" {
		t.Errorf("panic log record %v in\n%s", panicked, logs.String())
	}
}
