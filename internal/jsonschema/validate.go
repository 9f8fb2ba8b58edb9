package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// problem is one thing wrong with the arguments.
type problem struct {
	path []string
	msg  string
}

const (
	// maxValidateSteps bounds the work of checking one call: anyOf over
	// shared $refs can multiply the paths through a small schema.
	maxValidateSteps = 200_000
	// maxValidateDepth bounds how deep validation follows the value.
	maxValidateDepth = 512
)

// validator checks one value against a compiled schema. It belongs to one
// call: the schema graph is shared and only read.
type validator struct {
	steps int
	// tooComplex is set once the budget ran out; what was checked until
	// then stands and the rest is reported as unchecked.
	tooComplex bool
}

// validate appends the problems of v at path.
func (vd *validator) validate(s *schema, v any, path []string, out *[]problem) {
	add := func(format string, a ...any) {
		*out = append(*out, problem{path: slices.Clone(path), msg: fmt.Sprintf(format, a...)})
	}
	if vd.steps++; vd.steps > maxValidateSteps || len(path) > maxValidateDepth {
		vd.tooComplex = true
		return
	}
	if s.always != nil {
		if !*s.always {
			add("no value is allowed here")
		}
		return
	}
	if s.ref != nil {
		vd.validate(s.ref, v, path, out)
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
		s.checkNumber(x, add)
	case string:
		s.checkString(x, add)
	case []any:
		vd.checkArray(s, x, path, out, add)
	case map[string]any:
		vd.checkObject(s, x, path, out, add)
	}
	for _, sub := range s.allOf {
		vd.validate(sub, v, path, out)
	}
	if len(s.anyOf) > 0 && vd.matching(s.anyOf, v, path, 1) == 0 {
		add("matches none of the allowed shapes (anyOf)")
	}
	if len(s.oneOf) > 0 {
		if n := vd.matching(s.oneOf, v, path, 2); n != 1 {
			add("must match exactly one of the allowed shapes (oneOf), matches %d", n)
		}
	}
}

type addFunc func(format string, a ...any)

func (s *schema) checkNumber(x float64, add addFunc) {
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
}

func (s *schema) checkString(x string, add addFunc) {
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
}

func (vd *validator) checkArray(s *schema, x []any, path []string, out *[]problem, add addFunc) {
	if s.minItems != nil && len(x) < *s.minItems {
		add("minItems: got %d, want %d", len(x), *s.minItems)
	}
	if s.maxItems != nil && len(x) > *s.maxItems {
		add("maxItems: got %d, want %d", len(x), *s.maxItems)
	}
	for i, e := range x {
		item := s.items
		if i < len(s.tuple) {
			item = s.tuple[i]
		}
		if item != nil {
			vd.validate(item, e, append(path, strconv.Itoa(i)), out)
		}
	}
}

func (vd *validator) checkObject(s *schema, x map[string]any, path []string, out *[]problem, add addFunc) {
	for _, r := range s.required {
		if _, ok := x[r]; !ok {
			add("missing property '%s'", r)
		}
	}
	var extra []string
	for _, k := range sortedKeys(x) {
		if p, ok := s.properties[k]; ok {
			vd.validate(p, x[k], append(path, k), out)
			continue
		}
		switch {
		case s.additional != nil:
			vd.validate(s.additional, x[k], append(path, k), out)
		case s.noAdditional:
			extra = append(extra, "'"+k+"'")
		}
	}
	if len(extra) > 0 {
		add("additional properties %s not allowed", strings.Join(extra, ", "))
	}
}

// matching counts the subschemas v satisfies, stopping at enough.
func (vd *validator) matching(subs []*schema, v any, path []string, enough int) int {
	n := 0
	for _, sub := range subs {
		if n == enough {
			break
		}
		var probs []problem
		vd.validate(sub, v, path, &probs)
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

// Validate checks args, a tool call's arguments (empty means {}), against
// the schema and describes every problem at once, each at its JSON
// pointer with the value sent, in words for the model that has to fix
// its call. Its work is bounded: past a budget of steps it stops and says
// the schema was too complex to check completely.
func (sch *Schema) Validate(args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	var inst any
	dec := json.NewDecoder(bytes.NewReader(args))
	if err := dec.Decode(&inst); err != nil {
		return fmt.Errorf("arguments must be a JSON object: %w", err)
	}
	var probs []problem
	var vd validator
	vd.validate(sch.root, inst, nil, &probs)
	if vd.tooComplex {
		probs = append(probs, problem{msg: "the tool's schema is too complex to check these arguments completely"})
	}
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
				ptr.WriteString(escapePointer(tok))
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
