package config

import (
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Problem is something wrong with a layer: a file's unknown key, a value of
// the wrong type or out of range, a key a project file may not set.
type Problem struct {
	// Source is where the value came from: a file's path, "-c", "flags",
	// "environment", "editor settings".
	Source string
	// Line is the 1-based line in a file, 0 when there is none.
	Line int
	// Key is the dotted key, e.g. model_providers.azure.base_url.
	Key     string
	Message string
	// Ignored marks a key that was left out (a project file's key that
	// only the user's own config may set, or that agent-ls does not
	// know); the rest of the layer applies.
	// Any other problem means the layer was not used.
	Ignored bool
}

func (p Problem) String() string {
	var b strings.Builder
	b.WriteString(p.Source)
	if p.Line > 0 {
		fmt.Fprintf(&b, ":%d", p.Line)
	}
	if p.Key != "" {
		fmt.Fprintf(&b, ": %s", p.Key)
	}
	fmt.Fprintf(&b, ": %s", p.Message)
	return b.String()
}

// checker walks a TOML tree against the Go type it must decode into and
// collects every problem, where go-toml would stop at the first.
type checker struct {
	source string
	lines  map[string]int // dotted key -> line
	probs  []Problem
	// dropUnknown deletes an unknown key from its table, an ignored
	// Problem, rather than failing the file (a project's file).
	dropUnknown bool
}

func (c *checker) add(key, format string, args ...any) {
	c.probs = append(c.probs, Problem{Source: c.source, Line: c.line(key), Key: key, Message: fmt.Sprintf(format, args...)})
}

// line is the line of key, or of the nearest enclosing table that has one.
func (c *checker) line(key string) int {
	for k := key; k != ""; k = parentKey(k) {
		if l, ok := c.lines[k]; ok {
			return l
		}
	}
	return 0
}

func parentKey(k string) string {
	if i := strings.LastIndexAny(k, ".["); i >= 0 {
		return k[:i]
	}
	return ""
}

func join(prefix, key string) string {
	if prefix == "" {
		return key
	}
	return prefix + "." + key
}

// tomlFields maps a struct's TOML keys to its fields.
func tomlFields(t reflect.Type) map[string]reflect.StructField {
	out := make(map[string]reflect.StructField, t.NumField())
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			maps.Copy(out, tomlFields(f.Type)) // embedded: its keys are the struct's
			continue
		}
		if name, _, _ := strings.Cut(f.Tag.Get("toml"), ","); name != "" && name != "-" {
			out[name] = f
		}
	}
	return out
}

// check reports what in v cannot decode into t.
func (c *checker) check(key string, v any, t reflect.Type) {
	if t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			c.add(key, "want a table, not %s", describe(v))
			return
		}
		fields := tomlFields(t)
		for _, k := range sortedKeys(m) {
			f, ok := fields[k]
			if !ok {
				if c.dropUnknown {
					delete(m, k)
					c.probs = append(c.probs, Problem{Source: c.source, Line: c.line(join(key, k)), Key: join(key, k), Ignored: true,
						Message: "ignored: unknown key" + suggest(k, fields)})
					continue
				}
				c.add(join(key, k), "unknown key%s", suggest(k, fields))
				continue
			}
			c.check(join(key, k), m[k], f.Type)
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			c.add(key, "want a table, not %s", describe(v))
			return
		}
		for _, k := range sortedKeys(m) {
			c.check(join(key, quoteKey(k)), m[k], t.Elem())
		}
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			c.add(key, "want an array, not %s", describe(v))
			return
		}
		for i, e := range a {
			c.check(fmt.Sprintf("%s[%d]", key, i), e, t.Elem())
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			c.add(key, "want a string, not %s", describe(v))
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			c.add(key, "want true or false, not %s", describe(v))
		}
	case reflect.Int64, reflect.Int:
		if _, ok := v.(int64); !ok {
			c.add(key, "want an integer, not %s", describe(v))
		}
	case reflect.Float64:
		switch v.(type) {
		case int64, float64:
		default:
			c.add(key, "want a number, not %s", describe(v))
		}
	default:
		c.add(key, "agent-ls cannot read a %s here", t.Kind())
	}
}

// quoteKey writes a map key the way TOML would need it in a dotted key.
func quoteKey(k string) string {
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

func describe(v any) string {
	switch v := v.(type) {
	case string:
		return "the string " + strconv.Quote(v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	case int64:
		return fmt.Sprintf("the integer %d", v)
	case float64:
		return fmt.Sprintf("the number %v", v)
	case []any:
		return "an array"
	case map[string]any:
		return "a table"
	}
	return fmt.Sprintf("a %T", v)
}

// suggest names the known key closest to k, when one is close.
func suggest(k string, fields map[string]reflect.StructField) string {
	best, bestD := "", 3
	for name := range fields {
		if d := distance(k, name); d < bestD || d == bestD && best != "" && name < best {
			best, bestD = name, d
		}
	}
	if best == "" {
		return ""
	}
	return fmt.Sprintf(" (did you mean %s?)", best)
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// Values each enumerated key accepts.
var (
	reasoningEfforts    = []string{"none", "minimal", "low", "medium", "high", "xhigh", "max"}
	reasoningSummaries  = []string{"auto", "concise", "detailed", "none"}
	verbosities         = []string{"low", "medium", "high"}
	wireAPIs            = []string{"responses", "chat"}
	inherits            = []string{"all", "core", "none"}
	hookEvents          = []string{"before_tool_use", "after_tool_use"}
	notificationMethods = []string{"auto", "osc9", "bel"}
)

// oneOf checks that the string at key in m is one of allowed.
func (c *checker) oneOf(m map[string]any, name, prefix string, allowed []string) {
	s, ok := m[name].(string)
	if !ok || slices.Contains(allowed, s) {
		return
	}
	c.add(join(prefix, name), "unknown value %q (use %s)", s, orList(allowed))
}

func orList(words []string) string {
	if len(words) == 1 {
		return words[0]
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}
