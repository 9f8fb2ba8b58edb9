package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

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

func TestValidatorKeywords(t *testing.T) {
	sch, err := compileSchema(json.RawMessage(`{
	  "type": "object",
	  "$defs": {"color": {"type": "string", "enum": ["red", "green"]}},
	  "properties": {
	    "color": {"$ref": "#/$defs/color"},
	    "id": {"type": "string", "pattern": "^[a-z]+-[0-9]+$"},
	    "kind": {"const": "file"},
	    "size": {"anyOf": [{"type": "integer"}, {"type": "string", "pattern": "^[0-9]+[km]b$"}]},
	    "mode": {"oneOf": [{"type": "string"}, {"type": "number", "minimum": 0}]},
	    "ratio": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
	    "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}, "maxItems": 2},
	    "nullable": {"type": ["string", "null"]}
	  },
	  "additionalProperties": {"type": "boolean"}
	}`))
	if err != nil {
		t.Fatal(err)
	}
	ok := `{"color":"red","id":"ab-1","kind":"file","size":"10kb","mode":"x","ratio":0.5,"tags":["a"],"nullable":null,"flag":true}`
	if err := validateArguments(sch, json.RawMessage(ok)); err != nil {
		t.Fatalf("valid arguments refused: %v", err)
	}
	bad := `{"color":"blue","id":"AB","kind":"dir","size":true,"mode":[],"ratio":1,"tags":["abcd","b","c"],"nullable":3,"flag":"yes"}`
	err = validateArguments(sch, json.RawMessage(bad))
	if err == nil {
		t.Fatal("invalid arguments accepted")
	}
	for _, want := range []string{
		"(10 problems)",
		"/color (argument `color`): value must be one of 'red', 'green'",
		"/id (argument `id`): does not match pattern",
		"/kind (argument `kind`): must be \"file\"",
		"/size (argument `size`): matches none of the allowed shapes (anyOf)",
		"/mode (argument `mode`): must match exactly one of the allowed shapes (oneOf), matches 0",
		"/ratio (argument `ratio`): exclusiveMaximum: got 1, want less than 1",
		"/tags (argument `tags`): maxItems: got 3, want 2",
		"/tags/0 (argument `tags.0`): maxLength: got 4, want 3",
		"/nullable (argument `nullable`): got number, want string or null",
		"/flag (argument `flag`): got string, want boolean",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("lacks %q:\n%v", want, err)
		}
	}
	if _, err := compileSchema(json.RawMessage(`{"$ref": "https://example.com/s.json"}`)); err == nil {
		t.Error("a remote $ref compiled")
	}
	if _, err := compileSchema(json.RawMessage(`{"pattern": "("}`)); err == nil {
		t.Error("a broken pattern compiled")
	}
}
