package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// Tool calls are validated against their tool's schema before the
// handler runs; internal/jsonschema is tested on its own.

// schemaTool is a tool with a given parameter schema that answers "ran".
type schemaTool struct {
	name   string
	params json.RawMessage
}

func (s schemaTool) Spec() Spec {
	return Spec{Type: Function, Name: s.name, Parameters: s.params}
}
func (schemaTool) Kind() event.ToolKind { return event.KindOther }
func (schemaTool) Mutating(*Call) bool  { return false }
func (schemaTool) Title(*Call) string   { return "" }
func (schemaTool) Handle(context.Context, *Env, *Call) (Output, error) {
	return Output{Text: "ran"}, nil
}

func TestArgumentValidation(t *testing.T) {
	r, err := NewRegistry(ReadFile{}, ListDir{}, GrepFiles{}, Glob{}, ViewImage{}, UpdatePlan{})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		tool, args string
		want       []string // every line must be in the output
	}{
		{"read_file", `{}`, []string{"(1 problem)", "- at the top level: missing property 'file_path'"}},
		{"read_file", `{"file_path": 3, "offset": "2", "limit": 1.5, "mode": "x"}`, []string{
			"(4 problems)",
			"- at the top level: additional properties 'mode' not allowed",
			"- at /file_path (argument `file_path`): got number, want string; got 3",
			"- at /offset (argument `offset`): got string, want integer; got \"2\"",
			"- at /limit (argument `limit`): got number, want integer; got 1.5",
		}},
		{"read_file", `{"file_path": "a", "limit": 0}`, []string{"- at /limit (argument `limit`): minimum: got 0, want 1; got 0"}},
		{"list_dir", `{"path": "x", "depth": 99}`, []string{"additional properties 'path' not allowed", "- at /depth (argument `depth`): maximum: got 99, want 20; got 99"}},
		{"grep_files", `{"query": "x"}`, []string{"missing property 'pattern'", "additional properties 'query' not allowed"}},
		{"grep_files", `{"pattern": "", "case_sensitive": "yes", "files_only": 1, "limit": 5000}`, []string{
			"(4 problems)",
			"- at /pattern (argument `pattern`): minLength: got 0, want 1",
			"- at /case_sensitive (argument `case_sensitive`): got string, want boolean",
			"- at /files_only (argument `files_only`): got number, want boolean",
			"- at /limit (argument `limit`): maximum: got 5,000, want 2,000",
		}},
		{"glob", `{"pattern": ["*.go"]}`, []string{"- at /pattern (argument `pattern`): got array, want string; got [\"*.go\"]"}},
		{"view_image", `{"path": null}`, []string{"- at /path (argument `path`): got null, want string"}},
		{"update_plan", `{"plan": [{"step": 1}]}`, []string{
			"- at /plan/0 (argument `plan.0`): missing property 'status'",
			"- at /plan/0/step (argument `plan.0.step`): got number, want string",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.tool+tc.args, func(t *testing.T) {
			ran := false
			c := &Call{CallID: "1", Name: tc.tool, Type: Function, Arguments: json.RawMessage(tc.args)}
			res := r.Run(context.Background(), &Env{Cwd: t.TempDir(), Emit: func(event.Payload) { ran = true }}, []*Call{c}, func(*Call, Handler, Result) {})
			out := res[0].Output
			if !out.Failed || ran {
				t.Fatalf("want a failed output before the handler ran, got %+v", out)
			}
			if !strings.HasPrefix(out.Text, tc.tool+": invalid arguments") {
				t.Errorf("output does not start with the tool and the verdict: %q", out.Text)
			}
			for _, w := range tc.want {
				if !strings.Contains(out.Text, w) {
					t.Errorf("output lacks %q:\n%s", w, out.Text)
				}
			}
		})
	}
}

func TestArgumentValidationPassesValidCalls(t *testing.T) {
	env, _ := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"a.txt": "hello\n"})
	for _, tc := range []struct {
		h    Handler
		args string
	}{
		{ReadFile{}, `{"file_path": "a.txt", "offset": 1, "limit": 5}`},
		{ListDir{}, `{}`},
		{GrepFiles{}, `{"pattern": "hello", "case_sensitive": false, "files_only": true, "limit": 1}`},
		{Glob{}, `{"pattern": "*.txt"}`},
	} {
		var args map[string]any
		if err := json.Unmarshal([]byte(tc.args), &args); err != nil {
			t.Fatal(err)
		}
		if out := callTool(t, tc.h, env, args); out.Failed {
			t.Errorf("%s %s: %s", tc.h.Spec().Name, tc.args, out.Text)
		}
	}
}

func TestBrokenToolSchemaIsRefusedAtRegistration(t *testing.T) {
	// A schema that does not compile is a programming or MCP server
	// error: the tool is never offered, and the error names it.
	_, err := NewRegistry(schemaTool{name: "broken", params: json.RawMessage(`{"type": "object", "properties": {"x": {"type": "nonsense"}}}`)})
	if err == nil || !strings.Contains(err.Error(), `register tool "broken" from builtin: parameters schema: #/properties/x/type: unknown type "nonsense"`) {
		t.Errorf("got %v", err)
	}
}

// refSchema uses local $refs, so validating against it follows them.
const refSchema = `{
  "type": "object",
  "$defs": {
    "node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["name"]},
    "color": {"enum": ["red", "green"]}
  },
  "properties": {"tree": {"$ref": "#/$defs/node"}, "color": {"$ref": "#/$defs/color"}}
}`

// TestValidateCallsInParallel validates many calls at once against one
// tool, as the runner does for read-only calls; under -race it catches
// shared state written during validation.
func TestValidateCallsInParallel(t *testing.T) {
	r := newRegistry(t, schemaTool{name: "tree", params: json.RawMessage(refSchema)})
	var calls []*Call
	for i := range 16 {
		args := `{"tree": {"name": "a", "children": [{"name": "b"}, {"name": 3}]}, "color": "blue"}`
		if i%2 == 0 {
			args = `{"tree": {"name": "a", "children": [{"name": "b", "children": []}]}, "color": "red"}`
		}
		calls = append(calls, &Call{CallID: fmt.Sprint(i), Name: "tree", Type: Function, Arguments: json.RawMessage(args)})
	}
	res := r.Run(context.Background(), &Env{}, calls, func(*Call, Handler, Result) {})
	for i, rs := range res {
		if i%2 == 0 {
			if rs.Output.Failed {
				t.Errorf("call %d: valid arguments refused: %s", i, rs.Output.Text)
			}
			continue
		}
		for _, want := range []string{"/tree/children/1/name (argument `tree.children.1.name`): got number, want string", "/color (argument `color`): value must be one of 'red', 'green'"} {
			if !rs.Output.Failed || !strings.Contains(rs.Output.Text, want) {
				t.Errorf("call %d: want a failure containing %q, got %+v", i, want, rs.Output)
			}
		}
	}
}
