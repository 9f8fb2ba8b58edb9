package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/jsonschema"
)

// The files under testdata/mcp-schemas are the tools/list answers of npm
// MCP servers that start without credentials (server name and version in
// each file). They and deterministic mutations of them are the untrusted
// schemas registration and validation must survive.

type mcpTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"inputSchema"`
}

type mcpServerFile struct {
	Server  string    `json:"server"`
	Version string    `json:"version"`
	Tools   []mcpTool `json:"tools"`
}

// corpusSchema is one schema under test with where it came from.
type corpusSchema struct {
	origin string
	raw    json.RawMessage
}

func loadMCPSchemas(t testing.TB) []corpusSchema {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "mcp-schemas", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no schema files: %v", err)
	}
	var out []corpusSchema
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var sf mcpServerFile
		if err := json.Unmarshal(b, &sf); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, tl := range sf.Tools {
			out = append(out, corpusSchema{origin: fmt.Sprintf("%s@%s %s", sf.Server, sf.Version, tl.Name), raw: tl.InputSchema})
		}
	}
	return out
}

// corpus is every real schema plus mutations of them, 1,000 in all.
func corpus(t *testing.T) []corpusSchema {
	real := loadMCPSchemas(t)
	if len(real) < 300 {
		t.Fatalf("only %d real schemas", len(real))
	}
	all := slices.Clone(real)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; len(all) < 1000; i++ {
		base := real[rng.IntN(len(real))]
		raw, what := mutate(t, base.raw, rng)
		all = append(all, corpusSchema{origin: fmt.Sprintf("%s, mutation %d (%s)", base.origin, i, what), raw: raw})
	}
	return all
}

// TestMCPSchemasRegisterAndValidate registers every schema as an external
// tool (sanitized and compiled there), then validates a generated
// instance and a wrong one through the runner, all calls in parallel.
func TestMCPSchemasRegisterAndValidate(t *testing.T) {
	schemas := corpus(t)
	r := newRegistry(t)
	var calls []*Call
	var wantValid []bool
	for i, cs := range schemas {
		name := fmt.Sprintf("t%04d", i)
		if err := r.Register(Source{Name: name, External: true}, schemaTool{name: name, params: cs.raw}); err != nil {
			t.Errorf("%s: %v", cs.origin, err)
			continue
		}
		spec := r.Snapshot().byName[name].spec
		var doc any
		if err := json.Unmarshal(spec.Parameters, &doc); err != nil {
			t.Fatal(err)
		}
		inst, exact := generate(doc, doc, 0)
		args, err := json.Marshal(inst)
		if err != nil {
			t.Fatal(err)
		}
		calls = append(calls, &Call{CallID: name + "-ok", Name: name, Type: Function, Arguments: args})
		wantValid = append(wantValid, exact)
		calls = append(calls, &Call{CallID: name + "-bad", Name: name, Type: Function, Arguments: json.RawMessage(`{"zz_not_a_parameter": [1, {"a": null}], "path": 12}`)})
		wantValid = append(wantValid, false)
	}
	res := r.Run(context.Background(), &Env{}, calls, func(*Call, Handler, Result) {})
	checked := 0
	for i, rs := range res {
		if !wantValid[i] {
			continue
		}
		checked++
		if rs.Output.Failed {
			t.Errorf("%s: a generated valid instance was refused: %s\n%s", calls[i].CallID, rs.Output.Text, calls[i].Arguments)
		}
	}
	t.Logf("%d schemas, %d generated instances known valid", len(schemas), checked)
	if checked < 900 {
		t.Errorf("only %d of %d generated instances could be made valid", checked, len(schemas))
	}
}

// TestMCPSchemasCompileAsSent compiles the servers' schemas as they sent
// them (before sanitizing), which must not fail either.
func TestMCPSchemasCompileAsSent(t *testing.T) {
	for _, cs := range loadMCPSchemas(t) {
		sch, err := jsonschema.Compile(cs.raw)
		if err != nil {
			t.Errorf("%s: %v", cs.origin, err)
			continue
		}
		_ = sch.Validate(json.RawMessage(`{"a": [1, 2, {"b": "c"}]}`))
	}
}

// mutate returns a changed copy of a schema and says what changed. Every
// mutation keeps the schema valid, so it must compile.
func mutate(t *testing.T, raw json.RawMessage, rng *rand.Rand) (json.RawMessage, string) {
	t.Helper()
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	var did []string
	for range 1 + rng.IntN(3) {
		switch k := rng.IntN(7); k {
		case 0: // the root behind a $ref into $defs
			name := fmt.Sprintf("root%d", len(did))
			defs := mergeDefs(doc["$defs"], nil)
			delete(doc, "$defs")
			defs[name] = doc
			doc = map[string]any{"$defs": defs, "$ref": "#/$defs/" + name}
			did = append(did, "ref root")
		case 1: // a recursive tree property
			props := ensureProps(doc)
			props["children"] = map[string]any{"type": "array", "items": map[string]any{"$ref": "#"}}
			did = append(did, "recursive")
		case 2: // deep nesting
			depth := 10 + rng.IntN(40)
			var inner any = map[string]any{"type": "string", "minLength": 1}
			for range depth {
				inner = map[string]any{"type": "object", "properties": map[string]any{"n": inner}, "required": []any{"n"}}
			}
			ensureProps(doc)["deep"] = inner
			did = append(did, fmt.Sprintf("nested %d", depth))
		case 3: // nullable unions on every property
			for _, p := range ensureProps(doc) {
				if m, ok := p.(map[string]any); ok {
					if s, ok := m["type"].(string); ok {
						m["type"] = []any{s, "null"}
					}
				}
			}
			did = append(did, "nullable")
		case 4: // types dropped everywhere: sanitizing must infer them
			dropTypes(doc, 0)
			did = append(did, "untyped")
		case 5: // anyOf over shared $refs, many paths through few nodes
			defs := map[string]any{"l0": map[string]any{"type": "string"}}
			for i := 1; i < 12; i++ {
				ref := map[string]any{"$ref": fmt.Sprintf("#/$defs/l%d", i-1)}
				defs[fmt.Sprintf("l%d", i)] = map[string]any{"anyOf": []any{ref, ref}}
			}
			doc["$defs"] = mergeDefs(doc["$defs"], defs)
			ensureProps(doc)["choice"] = map[string]any{"$ref": "#/$defs/l11"}
			did = append(did, "anyOf fan-out")
		case 6: // bounds and enums
			ensureProps(doc)["count"] = map[string]any{"type": "integer", "minimum": 1, "maximum": 9}
			ensureProps(doc)["mode"] = map[string]any{"enum": []any{"a", "b", 3.5}}
			did = append(did, "bounds")
		}
	}
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return out, strings.Join(did, ", ")
}

// ensureProps returns the properties of the root object, behind the
// root's $refs into $defs.
func ensureProps(doc map[string]any) map[string]any {
	obj := doc
	for {
		ref, ok := obj["$ref"].(string)
		if !ok {
			break
		}
		defs, _ := doc["$defs"].(map[string]any)
		obj = defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any)
	}
	props, ok := obj["properties"].(map[string]any)
	if !ok {
		props = map[string]any{}
		obj["properties"] = props
	}
	return props
}

func mergeDefs(old any, add map[string]any) map[string]any {
	m, _ := old.(map[string]any)
	if m == nil {
		m = map[string]any{}
	}
	for k, v := range add {
		m[k] = v
	}
	return m
}

func dropTypes(v any, depth int) {
	if depth > 100 {
		return
	}
	switch x := v.(type) {
	case map[string]any:
		if depth > 0 {
			delete(x, "type")
		}
		for _, e := range x {
			dropTypes(e, depth+1)
		}
	case []any:
		for _, e := range x {
			dropTypes(e, depth+1)
		}
	}
}

// generate builds an instance of a sanitized schema node v within doc.
// exact reports whether the instance is known to satisfy the schema
// (patterns, formats and some combinations are beyond this generator).
func generate(doc, v any, depth int) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok || depth > 200 {
		return nil, false
	}
	if ref, ok := m["$ref"].(string); ok {
		target := doc
		for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
			tm, _ := target.(map[string]any)
			target = tm[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]
		}
		return generate(doc, target, depth+1)
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if subs, ok := m[kw].([]any); ok && len(subs) > 0 {
			inst, exact := generate(doc, subs[0], depth+1)
			return inst, exact && kw == "anyOf" && len(m) == 1
		}
	}
	if c, ok := m["const"]; ok {
		return c, true
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[0], true
	}
	_, patterned := m["pattern"]
	_, all := m["allOf"]
	exact := !patterned && !all
	switch m["type"] {
	case "object":
		obj := map[string]any{}
		props, _ := m["properties"].(map[string]any)
		required, _ := m["required"].([]any)
		for _, r := range required {
			name, _ := r.(string)
			inst, ok := generate(doc, props[name], depth+1)
			obj[name] = inst
			exact = exact && ok
		}
		if n, ok := num(m, "minProperties"); ok && n >= 0 && len(obj) < int(n) {
			exact = false
		}
		return obj, exact
	case "array":
		n := 0
		if c, ok := num(m, "minItems"); ok && c >= 0 {
			n = int(c)
		}
		arr := []any{}
		for range n {
			inst, ok := generate(doc, m["items"], depth+1)
			arr = append(arr, inst)
			exact = exact && ok
		}
		return arr, exact
	case "number", "integer":
		x := 1.0
		if lo, ok := num(m, "minimum"); ok {
			x = lo
		} else if hi, ok := num(m, "maximum"); ok && hi < x {
			x = hi
		}
		_, excl := m["exclusiveMinimum"]
		_, exclMax := m["exclusiveMaximum"]
		return x, exact && !excl && !exclMax
	case "boolean":
		return true, exact
	case "string":
		n := 1
		if c, ok := num(m, "minLength"); ok && c >= 0 && int(c) > n {
			n = int(c)
		}
		_, format := m["format"]
		return strings.Repeat("a", n), exact && !format
	}
	return nil, false
}

// num reads the numeric keyword name of the schema m.
func num(m map[string]any, name string) (float64, bool) {
	f, ok := m[name].(float64)
	return f, ok
}
