package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Tool arguments are checked against the tool's JSON schema before the
// tool runs, and the model is told every problem at once. The validator
// is our own and covers what tool schemas use (type, properties, required,
// additionalProperties, items, enum, const, numeric and length bounds,
// pattern, anyOf/oneOf/allOf, local $ref); other keywords are annotations
// and are ignored. A general JSON Schema library costs several
// milliseconds and megabytes at process start (it compiles the
// meta-schemas in init), which every `agent-ls sandbox` command would pay.

// compiledSchema is one tool's parameter schema, compiled on first use.
type compiledSchema struct {
	once   sync.Once
	schema *schema
	err    error
}

// schemaFor returns the compiled parameter schema of h, compiling it once.
// A tool without parameters has no schema (nil, nil).
func (r *Registry) schemaFor(name string, h Handler) (*schema, error) {
	v, _ := r.schemas.LoadOrStore(name, &compiledSchema{})
	cs := v.(*compiledSchema)
	cs.once.Do(func() {
		params := h.Spec().Parameters
		if len(bytes.TrimSpace(params)) == 0 {
			return
		}
		cs.schema, cs.err = compileSchema(params)
		if cs.err != nil {
			cs.err = fmt.Errorf("parameters schema of %s: %w", name, cs.err)
		}
	})
	return cs.schema, cs.err
}

// schema is a compiled JSON schema node.
type schema struct {
	always     *bool // true/false schemas
	types      []string
	properties map[string]*schema
	required   []string
	// additional: nil allows anything; noAdditional refuses all.
	additional                                           *schema
	noAdditional                                         bool
	items                                                *schema
	enum                                                 []any
	constVal                                             *any
	minimum, maximum, exclusiveMinimum, exclusiveMaximum *float64
	minLength, maxLength, minItems, maxItems             *int
	pattern                                              *regexp.Regexp
	anyOf, oneOf, allOf                                  []*schema
	ref                                                  string
	root                                                 *schemaRoot
}

// schemaRoot resolves local $refs ("#/$defs/x", "#/definitions/x").
type schemaRoot struct {
	doc      any
	compiled map[string]*schema
}

var validTypes = []string{"string", "number", "integer", "boolean", "object", "array", "null"}

func compileSchema(raw json.RawMessage) (*schema, error) {
	var doc any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("not JSON: %w", err)
	}
	root := &schemaRoot{doc: doc, compiled: make(map[string]*schema)}
	return root.compile(doc, "#")
}

func (root *schemaRoot) compile(v any, at string) (*schema, error) {
	if b, ok := v.(bool); ok {
		return &schema{always: &b}, nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: a schema must be an object or a boolean", at)
	}
	s := &schema{root: root}
	var err error
	switch t := m["type"].(type) {
	case nil:
	case string:
		s.types = []string{t}
	case []any:
		for _, x := range t {
			name, _ := x.(string)
			s.types = append(s.types, name)
		}
	default:
		return nil, fmt.Errorf("%s/type: must be a string or an array", at)
	}
	for _, t := range s.types {
		if !slices.Contains(validTypes, t) {
			return nil, fmt.Errorf("%s/type: unknown type %q", at, t)
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		s.properties = make(map[string]*schema, len(props))
		for name, p := range props {
			if s.properties[name], err = root.compile(p, at+"/properties/"+name); err != nil {
				return nil, err
			}
		}
	}
	for _, r := range asSlice(m["required"]) {
		if name, ok := r.(string); ok {
			s.required = append(s.required, name)
		}
	}
	switch a := m["additionalProperties"].(type) {
	case bool:
		s.noAdditional = !a
	case map[string]any:
		if s.additional, err = root.compile(a, at+"/additionalProperties"); err != nil {
			return nil, err
		}
	}
	if it, ok := m["items"]; ok {
		if s.items, err = root.compile(it, at+"/items"); err != nil {
			return nil, err
		}
	}
	if e, ok := m["enum"].([]any); ok {
		s.enum = e
	}
	if c, ok := m["const"]; ok {
		s.constVal = &c
	}
	s.minimum, s.maximum = number(m["minimum"]), number(m["maximum"])
	s.exclusiveMinimum, s.exclusiveMaximum = number(m["exclusiveMinimum"]), number(m["exclusiveMaximum"])
	s.minLength, s.maxLength = count(m["minLength"]), count(m["maxLength"])
	s.minItems, s.maxItems = count(m["minItems"]), count(m["maxItems"])
	if p, ok := m["pattern"].(string); ok {
		if s.pattern, err = regexp.Compile(p); err != nil {
			return nil, fmt.Errorf("%s/pattern: %w", at, err)
		}
	}
	for kw, dst := range map[string]*[]*schema{"anyOf": &s.anyOf, "oneOf": &s.oneOf, "allOf": &s.allOf} {
		for i, sub := range asSlice(m[kw]) {
			c, err := root.compile(sub, fmt.Sprintf("%s/%s/%d", at, kw, i))
			if err != nil {
				return nil, err
			}
			*dst = append(*dst, c)
		}
	}
	if ref, ok := m["$ref"].(string); ok {
		if !strings.HasPrefix(ref, "#") {
			return nil, fmt.Errorf("%s/$ref: only local references are supported, got %q", at, ref)
		}
		s.ref = ref
	}
	return s, nil
}

// resolve compiles the target of a local $ref once.
func (root *schemaRoot) resolve(ref string) (*schema, error) {
	if s, ok := root.compiled[ref]; ok {
		return s, nil
	}
	v := root.doc
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#"), "/")[1:] {
		tok = strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")
		m, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("$ref %s does not resolve", ref)
		}
		if v, ok = m[tok]; !ok {
			return nil, fmt.Errorf("$ref %s does not resolve", ref)
		}
	}
	root.compiled[ref] = &schema{} // breaks cycles while compiling
	s, err := root.compile(v, ref)
	if err != nil {
		return nil, err
	}
	root.compiled[ref] = s
	return s, nil
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

// problem is one thing wrong with the arguments.
type problem struct {
	path []string
	msg  string
}

// validate appends the problems of v at path.
func (s *schema) validate(v any, path []string, out *[]problem) {
	add := func(format string, a ...any) {
		*out = append(*out, problem{path: slices.Clone(path), msg: fmt.Sprintf(format, a...)})
	}
	if s.always != nil {
		if !*s.always {
			add("no value is allowed here")
		}
		return
	}
	if s.ref != "" {
		target, err := s.root.resolve(s.ref)
		if err != nil {
			add("%v", err)
			return
		}
		target.validate(v, path, out)
	}
	if len(s.types) > 0 && !slices.ContainsFunc(s.types, func(t string) bool { return hasType(v, t) }) {
		add("got %s, want %s", typeOf(v), strings.Join(s.types, " or "))
		return
	}
	if s.constVal != nil && !equalJSON(v, *s.constVal) {
		add("must be %s", compactJSON(*s.constVal))
	}
	if s.enum != nil && !slices.ContainsFunc(s.enum, func(e any) bool { return equalJSON(v, e) }) {
		var opts []string
		for _, e := range s.enum {
			if str, ok := e.(string); ok {
				opts = append(opts, "'"+str+"'")
			} else {
				opts = append(opts, compactJSON(e))
			}
		}
		add("value must be one of %s", strings.Join(opts, ", "))
	}
	switch x := v.(type) {
	case float64:
		if s.minimum != nil && x < *s.minimum {
			add("minimum: got %s, want %s", numberText(x), numberText(*s.minimum))
		}
		if s.maximum != nil && x > *s.maximum {
			add("maximum: got %s, want %s", numberText(x), numberText(*s.maximum))
		}
		if s.exclusiveMinimum != nil && x <= *s.exclusiveMinimum {
			add("exclusiveMinimum: got %s, want more than %s", numberText(x), numberText(*s.exclusiveMinimum))
		}
		if s.exclusiveMaximum != nil && x >= *s.exclusiveMaximum {
			add("exclusiveMaximum: got %s, want less than %s", numberText(x), numberText(*s.exclusiveMaximum))
		}
	case string:
		n := len([]rune(x))
		if s.minLength != nil && n < *s.minLength {
			add("minLength: got %d, want %d", n, *s.minLength)
		}
		if s.maxLength != nil && n > *s.maxLength {
			add("maxLength: got %d, want %d", n, *s.maxLength)
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			add("does not match pattern %q", s.pattern.String())
		}
	case []any:
		if s.minItems != nil && len(x) < *s.minItems {
			add("minItems: got %d, want %d", len(x), *s.minItems)
		}
		if s.maxItems != nil && len(x) > *s.maxItems {
			add("maxItems: got %d, want %d", len(x), *s.maxItems)
		}
		if s.items != nil {
			for i, e := range x {
				s.items.validate(e, append(path, strconv.Itoa(i)), out)
			}
		}
	case map[string]any:
		for _, r := range s.required {
			if _, ok := x[r]; !ok {
				add("missing property '%s'", r)
			}
		}
		var extra []string
		for _, k := range sortedKeys(x) {
			if p, ok := s.properties[k]; ok {
				p.validate(x[k], append(path, k), out)
				continue
			}
			switch {
			case s.additional != nil:
				s.additional.validate(x[k], append(path, k), out)
			case s.noAdditional:
				extra = append(extra, "'"+k+"'")
			}
		}
		if len(extra) > 0 {
			add("additional properties %s not allowed", strings.Join(extra, ", "))
		}
	}
	for _, sub := range s.allOf {
		sub.validate(v, path, out)
	}
	if len(s.anyOf) > 0 && matching(s.anyOf, v) == 0 {
		add("matches none of the allowed shapes (anyOf)")
	}
	if len(s.oneOf) > 0 {
		if n := matching(s.oneOf, v); n != 1 {
			add("must match exactly one of the allowed shapes (oneOf), matches %d", n)
		}
	}
}

func matching(subs []*schema, v any) int {
	n := 0
	for _, sub := range subs {
		var probs []problem
		sub.validate(v, nil, &probs)
		if len(probs) == 0 {
			n++
		}
	}
	return n
}

func hasType(v any, t string) bool {
	switch t {
	case "null":
		return v == nil
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f) && !math.IsInf(f, 0)
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	}
	return false
}

func typeOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case float64:
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func equalJSON(a, b any) bool { return compactJSON(a) == compactJSON(b) }

func compactJSON(v any) string {
	b, err := json.Marshal(v) // map keys are sorted, so equal values print equally
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// numberText writes integers with thousands separators ("5,000"), others
// as JSON would.
func numberText(f float64) string {
	if f != math.Trunc(f) || math.Abs(f) >= 1e15 {
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	digits := strconv.FormatInt(int64(math.Abs(f)), 10)
	var b strings.Builder
	if f < 0 {
		b.WriteByte('-')
	}
	for i, d := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(d)
	}
	return b.String()
}

// validateArguments checks args (already known to be a JSON object or
// empty) against the tool's schema and describes every problem at once.
func validateArguments(sch *schema, args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	var inst any
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&inst); err != nil {
		return fmt.Errorf("arguments must be a JSON object: %w", err)
	}
	var probs []problem
	sch.validate(inst, nil, &probs)
	if len(probs) == 0 {
		return nil
	}
	var lines []string
	for _, p := range probs {
		line := "- at the top level: " + p.msg
		if len(p.path) > 0 {
			var ptr strings.Builder
			for _, tok := range p.path {
				ptr.WriteByte('/')
				ptr.WriteString(strings.ReplaceAll(strings.ReplaceAll(tok, "~", "~0"), "/", "~1"))
			}
			line = fmt.Sprintf("- at %s (argument `%s`): %s", ptr.String(), strings.Join(p.path, "."), p.msg)
			if v, ok := valueAt(inst, p.path); ok {
				if b, err := json.Marshal(v); err == nil && len(b) <= 80 {
					line += "; got " + string(b)
				}
			}
		}
		if !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	slices.Sort(lines)
	n := "1 problem"
	if len(lines) != 1 {
		n = fmt.Sprintf("%d problems", len(lines))
	}
	return fmt.Errorf("invalid arguments (%s); fix all of them and call again:\n%s", n, strings.Join(lines, "\n"))
}

// valueAt returns the value at a JSON pointer's tokens in v.
func valueAt(v any, tokens []string) (any, bool) {
	for _, tok := range tokens {
		switch x := v.(type) {
		case map[string]any:
			var ok bool
			if v, ok = x[tok]; !ok {
				return nil, false
			}
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			v = x[i]
		default:
			return nil, false
		}
	}
	return v, true
}
