package jsonschema

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

const (
	// maxSchemaDepth bounds the nesting of one schema; real tool schemas
	// nest a few levels.
	maxSchemaDepth = 256
	// maxSchemaNodes bounds the subschemas of one tool schema.
	maxSchemaNodes = 20_000
)

// schema is a compiled JSON schema node. Once compiled it is never
// written again.
type schema struct {
	always     *bool // true/false schemas
	types      []string
	properties map[string]*schema
	required   []string
	// additional: nil allows anything; noAdditional refuses all.
	additional                                           *schema
	noAdditional                                         bool
	items                                                *schema
	tuple                                                []*schema // items as an array (drafts 4 to 7)
	enum                                                 []any
	constVal                                             *any
	minimum, maximum, exclusiveMinimum, exclusiveMaximum *float64
	minLength, maxLength, minItems, maxItems             *int
	pattern                                              *regexp.Regexp
	anyOf, oneOf, allOf                                  []*schema
	ref                                                  *schema // the resolved $ref
	at                                                   string  // where the node is, for error messages
}

var validTypes = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

// compiler turns one schema document into nodes. Each location (a JSON
// pointer into the document) is compiled at most once, whether reached by
// nesting or by $ref, so recursive references become edges of a graph.
type compiler struct {
	doc   any
	byLoc map[string]*schema
	nodes []*schema
}

// Schema is a compiled JSON schema. It is immutable: any number of
// goroutines may validate against it at once.
type Schema struct {
	root *schema
}

// Compile compiles the schema document raw, resolving every $ref (local
// JSON pointers only) and refusing a document that is not a schema, nests
// deeper than 256 levels, has more than 20,000 subschemas, or loops
// through $ref, allOf, anyOf or oneOf without descending into the value.
func Compile(raw json.RawMessage) (*Schema, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	c := &compiler{doc: doc, byLoc: make(map[string]*schema)}
	root, err := c.compile(doc, "#", 0)
	if err != nil {
		return nil, err
	}
	if err := c.checkCycles(); err != nil {
		return nil, err
	}
	return &Schema{root: root}, nil
}

// compile returns the node at location at (whose value is v), compiling
// it on first sight.
func (c *compiler) compile(v any, at string, depth int) (*schema, error) {
	if s, ok := c.byLoc[at]; ok {
		return s, nil
	}
	if depth > maxSchemaDepth {
		return nil, fmt.Errorf("%s: the schema nests deeper than %d levels", at, maxSchemaDepth)
	}
	if len(c.nodes) >= maxSchemaNodes {
		return nil, fmt.Errorf("%s: the schema has more than %d subschemas", at, maxSchemaNodes)
	}
	s := &schema{at: at}
	// Registered before its children, so a $ref back to it finds it.
	c.byLoc[at] = s
	c.nodes = append(c.nodes, s)
	if err := c.fill(s, v, at, depth); err != nil {
		return nil, err
	}
	return s, nil
}

// fill compiles the keywords of v into s.
func (c *compiler) fill(s *schema, v any, at string, depth int) error {
	if b, ok := v.(bool); ok {
		s.always = &b
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: a schema must be an object or a boolean", at)
	}
	var err error
	if s.types, err = schemaTypes(m["type"], at); err != nil {
		return err
	}
	for _, r := range asSlice(m["required"]) {
		if name, ok := r.(string); ok {
			s.required = append(s.required, name)
		}
	}
	if a, ok := m["additionalProperties"].(bool); ok {
		s.noAdditional = !a
	}
	if e, ok := m["enum"].([]any); ok {
		s.enum = e
	}
	if cv, ok := m["const"]; ok {
		s.constVal = &cv
	}
	s.minimum, s.maximum = number(m["minimum"]), number(m["maximum"])
	s.exclusiveMinimum, s.exclusiveMaximum = number(m["exclusiveMinimum"]), number(m["exclusiveMaximum"])
	s.minLength, s.maxLength = count(m["minLength"]), count(m["maxLength"])
	s.minItems, s.maxItems = count(m["minItems"]), count(m["maxItems"])
	if p, ok := m["pattern"].(string); ok {
		if s.pattern, err = regexp.Compile(p); err != nil {
			return fmt.Errorf("%s/pattern: %w", at, err)
		}
	}
	if ref, ok := m["$ref"].(string); ok {
		if s.ref, err = c.resolve(ref, at, depth); err != nil {
			return err
		}
	}
	return c.fillSubschemas(s, m, at, depth)
}

// fillSubschemas compiles the keywords of m that hold schemas.
func (c *compiler) fillSubschemas(s *schema, m map[string]any, at string, depth int) error {
	sub := func(v any, loc string) (*schema, error) { return c.compile(v, loc, depth+1) }
	var err error
	if props, ok := m["properties"].(map[string]any); ok {
		s.properties = make(map[string]*schema, len(props))
		for name, p := range props {
			if s.properties[name], err = sub(p, at+"/properties/"+escapePointer(name)); err != nil {
				return err
			}
		}
	}
	if a, ok := m["additionalProperties"].(map[string]any); ok {
		if s.additional, err = sub(a, at+"/additionalProperties"); err != nil {
			return err
		}
	}
	switch it := m["items"].(type) {
	case nil:
	case []any:
		for i, e := range it {
			t, err := sub(e, at+"/items/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			s.tuple = append(s.tuple, t)
		}
	default:
		if s.items, err = sub(it, at+"/items"); err != nil {
			return err
		}
	}
	for _, kw := range []struct {
		name string
		dst  *[]*schema
	}{{"anyOf", &s.anyOf}, {"oneOf", &s.oneOf}, {"allOf", &s.allOf}} {
		for i, v := range asSlice(m[kw.name]) {
			t, err := sub(v, at+"/"+kw.name+"/"+strconv.Itoa(i))
			if err != nil {
				return err
			}
			*kw.dst = append(*kw.dst, t)
		}
	}
	return nil
}

// schemaTypes reads the type keyword.
func schemaTypes(v any, at string) ([]string, error) {
	var types []string
	switch t := v.(type) {
	case nil:
		return nil, nil
	case string:
		types = []string{t}
	case []any:
		for _, x := range t {
			name, _ := x.(string)
			types = append(types, name)
		}
	default:
		return nil, fmt.Errorf("%s/type: must be a string or an array", at)
	}
	for _, t := range types {
		if !slices.Contains(validTypes, t) {
			return nil, fmt.Errorf("%s/type: unknown type %q", at, t)
		}
	}
	return types, nil
}

// resolve compiles the target of a local $ref ("#", "#/$defs/x", any
// JSON pointer into the document).
func (c *compiler) resolve(ref, at string, depth int) (*schema, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, fmt.Errorf("%s/$ref: only local references are supported, got %q", at, ref)
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, fmt.Errorf("%s/$ref: %q: %w", at, ref, err)
	}
	if frag != "" && !strings.HasPrefix(frag, "/") {
		return nil, fmt.Errorf("%s/$ref: only JSON-pointer references are supported, got %q", at, ref)
	}
	v, loc := c.doc, "#"
	if frag != "" {
		for _, tok := range strings.Split(frag[1:], "/") {
			m, ok := v.(map[string]any)
			if arr, isArr := v.([]any); isArr {
				// Pointers into anyOf/allOf/items arrays.
				i, err := strconv.Atoi(tok)
				if err != nil || i < 0 || i >= len(arr) {
					return nil, fmt.Errorf("%s/$ref: %s does not resolve", at, ref)
				}
				v, loc = arr[i], loc+"/"+tok
				continue
			}
			name := strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
			if !ok {
				return nil, fmt.Errorf("%s/$ref: %s does not resolve", at, ref)
			}
			if v, ok = m[name]; !ok {
				return nil, fmt.Errorf("%s/$ref: %s does not resolve", at, ref)
			}
			loc += "/" + escapePointer(name)
		}
	}
	return c.compile(v, loc, depth+1)
}

// checkCycles refuses a schema in which a node reaches itself through
// $ref, allOf, anyOf or oneOf alone: those apply to the same value, so
// validating would go round forever without ever reaching the end of the
// value. Cycles through properties or items are fine (a tree schema):
// each step goes one level down the value, which is finite.
func (c *compiler) checkCycles() error {
	const (
		unseen = iota
		open
		closed
	)
	state := make(map[*schema]int, len(c.nodes))
	var visit func(s *schema, path []string) error
	visit = func(s *schema, path []string) error {
		switch state[s] {
		case open:
			loop := append(path[slices.Index(path, s.at):], s.at)
			return fmt.Errorf("%s: a $ref cycle that never descends into the value (%s)", s.at, strings.Join(loop, " → "))
		case closed:
			return nil
		}
		state[s] = open
		path = append(path, s.at)
		for _, next := range s.sameValue() {
			if err := visit(next, path); err != nil {
				return err
			}
		}
		state[s] = closed
		return nil
	}
	for _, s := range c.nodes {
		if err := visit(s, nil); err != nil {
			return err
		}
	}
	return nil
}

// sameValue lists the nodes that validate the same value as s.
func (s *schema) sameValue() []*schema {
	out := slices.Concat(s.allOf, s.anyOf, s.oneOf)
	if s.ref != nil {
		out = append(out, s.ref)
	}
	return out
}

func escapePointer(tok string) string {
	return strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1")
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func number(v any) *float64 {
	if f, ok := v.(float64); ok {
		return &f
	}
	return nil
}

func count(v any) *int {
	if f, ok := v.(float64); ok && f >= 0 {
		n := int(f)
		return &n
	}
	return nil
}
