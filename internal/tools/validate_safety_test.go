package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// refSchema uses local $refs, so validating against it follows them.
const refSchema = `{
  "type": "object",
  "$defs": {
    "node": {"type": "object", "properties": {"name": {"type": "string"}, "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}}, "required": ["name"]},
    "color": {"enum": ["red", "green"]}
  },
  "properties": {"tree": {"$ref": "#/$defs/node"}, "color": {"$ref": "#/$defs/color"}}
}`

// TestValidateInParallel validates many calls at once against one tool,
// as the runner does for read-only calls; under -race it catches shared
// state written during validation.
func TestValidateInParallel(t *testing.T) {
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

	// The same directly against one compiled schema, from many goroutines.
	sch, err := compileSchema(json.RawMessage(refSchema))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if err := validateArguments(sch, json.RawMessage(`{"tree": {"name": "x", "children": [{"name": "y"}]}}`)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

// recursionChildEnv makes the test binary run the recursive-schema checks
// in a child process: a stack overflow is fatal to the whole process and
// cannot be recovered, so the parent must survive it to report it.
const recursionChildEnv = "AGENT_LS_TEST_RECURSION_CHILD"

// TestRecursiveRefsTerminate checks that schemas whose $refs loop back on
// themselves either compile into something that validates in bounded time
// or are refused when compiled, and never recurse without end.
func TestRecursiveRefsTerminate(t *testing.T) {
	if os.Getenv(recursionChildEnv) == "1" {
		t.Skip("runs in the parent only")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecursiveRefsChild$", "-test.v")
	cmd.Env = append(os.Environ(), recursionChildEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		text := string(out)
		if len(text) > 3000 {
			text = text[:3000] + "\n..."
		}
		t.Fatalf("the child validating recursive schemas failed (%v):\n%s", err, text)
	}
	if !strings.Contains(string(out), "--- PASS: TestRecursiveRefsChild") {
		t.Fatalf("the child did not run the checks:\n%s", out)
	}
}

func TestRecursiveRefsChild(t *testing.T) {
	if os.Getenv(recursionChildEnv) != "1" {
		t.Skip("runs as a child of TestRecursiveRefsTerminate")
	}
	refused := []string{
		`{"$ref": "#"}`,
		`{"type": "object", "properties": {"a": {"$ref": "#/properties/a"}}}`,
		`{"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}, "properties": {"x": {"$ref": "#/$defs/a"}}}`,
		`{"anyOf": [{"type": "string"}, {"$ref": "#"}]}`,
		`{"definitions": {"l": {"oneOf": [{"$ref": "#/definitions/l"}]}}, "properties": {"x": {"$ref": "#/definitions/l"}}}`,
	}
	for _, s := range refused {
		sch, err := compileSchema(json.RawMessage(s))
		if err == nil {
			// Before the fix this recursed without end here.
			err = validateArguments(sch, json.RawMessage(`{"a": 1, "x": 2}`))
			t.Errorf("%s compiled; validating gave %v", s, err)
			continue
		}
		if !strings.Contains(err.Error(), "cycle") {
			t.Errorf("%s: error does not name the cycle: %v", s, err)
		}
	}
	// Recursion that descends into the value is fine: a tree.
	sch, err := compileSchema(json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := validateArguments(sch, json.RawMessage(`{"name": "a", "kids": [{"name": "b", "kids": [{"name": 1}]}]}`)); err == nil || !strings.Contains(err.Error(), "/kids/0/kids/0/name") {
		t.Errorf("tree: got %v", err)
	}
}

// TestDeeplyNestedSchemas: nesting within the bound compiles and reports
// problems at the right depth; beyond it the schema is refused, never a
// stack overflow.
func TestDeeplyNestedSchemas(t *testing.T) {
	nested := func(depth int) (schema, value string) {
		schema, value = `{"type": "string"}`, `3`
		for range depth {
			schema = `{"type": "object", "properties": {"n": ` + schema + `}, "required": ["n"]}`
			value = `{"n": ` + value + `}`
		}
		return schema, value
	}
	sch, val := nested(100)
	compiled, err := compileSchema(json.RawMessage(sch))
	if err != nil {
		t.Fatal(err)
	}
	err = validateArguments(compiled, json.RawMessage(val))
	if want := strings.Repeat("/n", 100) + " (argument `" + strings.TrimSuffix(strings.Repeat("n.", 100), ".") + "`): got number, want string"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("100 levels: got %v", err)
	}
	sch, _ = nested(maxSchemaDepth + 1)
	if _, err := compileSchema(json.RawMessage(sch)); err == nil || !strings.Contains(err.Error(), "nests deeper than") {
		t.Errorf("%d levels: got %v", maxSchemaDepth+1, err)
	}
	// Nesting beyond what encoding/json accepts fails as JSON.
	if _, err := compileSchema(json.RawMessage(strings.Repeat(`{"items":`, 20_000) + "{}" + strings.Repeat("}", 20_000))); err == nil {
		t.Error("a schema nested 20,000 levels compiled")
	}
	if _, err := SanitizeSchema(json.RawMessage(strings.Repeat(`{"items":`, 20_000) + "{}" + strings.Repeat("}", 20_000))); err == nil {
		t.Error("a schema nested 20,000 levels was sanitized")
	}
}

// TestValidationWorkIsBounded: $refs shared by anyOf members make the
// paths through a small schema grow as 2^n; validation stops at its
// budget and says so instead of running for hours.
func TestValidationWorkIsBounded(t *testing.T) {
	defs := []string{`"l0": {"type": "string"}`}
	for i := 1; i <= 40; i++ {
		defs = append(defs, fmt.Sprintf(`"l%d": {"anyOf": [{"$ref": "#/$defs/l%d"}, {"$ref": "#/$defs/l%d"}]}`, i, i-1, i-1))
	}
	sch, err := compileSchema(json.RawMessage(`{"$defs": {` + strings.Join(defs, ",") + `}, "properties": {"x": {"$ref": "#/$defs/l40"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := validateArguments(sch, json.RawMessage(`{"x": "ok"}`)); err != nil {
		t.Errorf("a valid value was refused: %v", err)
	}
	err = validateArguments(sch, json.RawMessage(`{"x": 1}`))
	if err == nil || !strings.Contains(err.Error(), "too complex to check") {
		t.Errorf("got %v", err)
	}
}
