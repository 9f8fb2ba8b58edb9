package jsonschema

import (
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

// TestValidateInParallel validates from many goroutines against one
// compiled schema, as the runner does for read-only calls; under -race it
// catches shared state written during validation.
func TestValidateInParallel(t *testing.T) {
	sch, err := Compile(json.RawMessage(refSchema))
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if err := sch.Validate(json.RawMessage(`{"tree": {"name": "x", "children": [{"name": "y"}]}}`)); err != nil {
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
		sch, err := Compile(json.RawMessage(s))
		if err == nil {
			// Before the fix this recursed without end here.
			err = sch.Validate(json.RawMessage(`{"a": 1, "x": 2}`))
			t.Errorf("%s compiled; validating gave %v", s, err)
			continue
		}
		if !strings.Contains(err.Error(), "cycle") {
			t.Errorf("%s: error does not name the cycle: %v", s, err)
		}
	}
	// Recursion that descends into the value is fine: a tree.
	sch, err := Compile(json.RawMessage(`{"type": "object", "properties": {"name": {"type": "string"}, "kids": {"type": "array", "items": {"$ref": "#"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(json.RawMessage(`{"name": "a", "kids": [{"name": "b", "kids": [{"name": 1}]}]}`)); err == nil || !strings.Contains(err.Error(), "/kids/0/kids/0/name") {
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
	compiled, err := Compile(json.RawMessage(sch))
	if err != nil {
		t.Fatal(err)
	}
	err = compiled.Validate(json.RawMessage(val))
	if want := strings.Repeat("/n", 100) + " (argument `" + strings.TrimSuffix(strings.Repeat("n.", 100), ".") + "`): got number, want string"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("100 levels: got %v", err)
	}
	sch, _ = nested(maxSchemaDepth + 1)
	if _, err := Compile(json.RawMessage(sch)); err == nil || !strings.Contains(err.Error(), "nests deeper than") {
		t.Errorf("%d levels: got %v", maxSchemaDepth+1, err)
	}
	// Nesting beyond what encoding/json accepts fails as JSON.
	if _, err := Compile(json.RawMessage(strings.Repeat(`{"items":`, 20_000) + "{}" + strings.Repeat("}", 20_000))); err == nil {
		t.Error("a schema nested 20,000 levels compiled")
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
	sch, err := Compile(json.RawMessage(`{"$defs": {` + strings.Join(defs, ",") + `}, "properties": {"x": {"$ref": "#/$defs/l40"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(json.RawMessage(`{"x": "ok"}`)); err != nil {
		t.Errorf("a valid value was refused: %v", err)
	}
	err = sch.Validate(json.RawMessage(`{"x": 1}`))
	if err == nil || !strings.Contains(err.Error(), "too complex to check") {
		t.Errorf("got %v", err)
	}
}
