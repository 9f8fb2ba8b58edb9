package elicit

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

const everyKind = `{"type":"object","required":["name"],"properties":{
	"name":{"type":"string","title":"Name","minLength":2,"maxLength":5},
	"email":{"type":"string","format":"email"},
	"site":{"type":"string","format":"uri"},
	"born":{"type":"string","format":"date"},
	"at":{"type":"string","format":"date-time"},
	"n":{"type":"integer","minimum":1,"maximum":100,"default":42},
	"x":{"type":"number","minimum":0,"maximum":1},
	"ok":{"type":"boolean","default":false},
	"pet":{"type":"string","enum":["p1","p2"],"enumNames":["Cats","Dogs"],"default":"p1"},
	"hero":{"type":"string","oneOf":[{"const":"h1","title":"Superman"},{"const":"h2","title":"Batman"}]},
	"tags":{"type":"array","minItems":1,"maxItems":2,"items":{"type":"string","enum":["a","b","c"]}},
	"fish":{"type":"array","items":{"anyOf":[{"const":"f1","title":"Tuna"}]},"default":["f1"]}}}`

// TestParseEveryKind: every kind of field MCP allows is read, in the
// server's order, with its bounds and its default.
func TestParseEveryKind(t *testing.T) {
	s, err := Parse(json.RawMessage(everyKind))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range s.Fields {
		names = append(names, f.Name+":"+string(f.Kind))
	}
	if got := strings.Join(names, " "); got != "name:string email:string site:string born:string at:string n:integer x:number ok:boolean pet:enum hero:enum tags:multi fish:multi" {
		t.Errorf("fields %s", got)
	}
	if f := s.Fields[0]; !f.Required || f.MinLength != 2 || f.MaxLength != 5 || s.Fields[1].Required {
		t.Errorf("name %+v", f)
	}
	if f := s.Fields[8]; f.Default != "p1" || f.Choices[1] != (Choice{"p2", "Dogs"}) {
		t.Errorf("pet %+v", f)
	}
	if d, _ := s.Fields[11].Default.([]string); len(d) != 1 || d[0] != "f1" {
		t.Errorf("fish default %#v", s.Fields[11].Default)
	}
}

// TestCheck: content is checked field by field; defaults fill what is
// missing; anything that does not fit is an error.
func TestCheck(t *testing.T) {
	s, err := Parse(json.RawMessage(everyKind))
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Check(map[string]any{"name": "Ada", "email": "ada@example.com", "site": "https://a.example/x", "born": "1815-12-10",
		"at": "2025-11-25T14:30:00Z", "n": float64(7), "x": 0.5, "ok": true, "hero": "h2", "tags": []any{"a", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if want := `{"at":"2025-11-25T14:30:00Z","born":"1815-12-10","email":"ada@example.com","fish":["f1"],"hero":"h2","n":7,"name":"Ada","ok":true,"pet":"p1","site":"https://a.example/x","tags":["a","c"],"x":0.5}`; string(b) != want {
		t.Errorf("content %s\nwant    %s", b, want)
	}
	for _, bad := range []map[string]any{
		{},                              // name required
		{"name": "A"},                   // too short
		{"name": "Adaline"},             // too long
		{"name": 12},                    // wrong type
		{"name": []any{"Ada"}},          // wrong type
		{"name": "Ada", "extra": "x"},   // unknown field
		{"name": "Ada", "email": "ada"}, // not an email
		{"name": "Ada", "email": "Ada <ada@example.com>"},
		{"name": "Ada", "site": "no scheme"},
		{"name": "Ada", "born": "10/12/1815"},
		{"name": "Ada", "at": "2025-11-25"},
		{"name": "Ada", "n": 7.5},                      // not whole
		{"name": "Ada", "n": float64(0)},               // below minimum
		{"name": "Ada", "n": 1e300},                    // above maximum
		{"name": "Ada", "n": "7"},                      // a string
		{"name": "Ada", "x": math.NaN()},               // not finite
		{"name": "Ada", "x": math.Inf(1)},              // not finite
		{"name": "Ada", "ok": "true"},                  // a string
		{"name": "Ada", "hero": "Superman"},            // a title, not a value
		{"name": "Ada", "tags": []any{}},               // fewer than minItems
		{"name": "Ada", "tags": []any{"a", "b", "c"}},  // more than maxItems
		{"name": "Ada", "tags": []any{"a", "a"}},       // twice
		{"name": "Ada", "tags": []any{"a", 1}},         // not strings
		{"name": "Ada", "tags": "a"},                   // not a list
		{"name": "Ada\xff"},                            // not UTF-8
		{"name": strings.Repeat("x", MaxValueBytes+1)}, // huge
	} {
		if got, err := s.Check(bad); err == nil {
			t.Errorf("%.80v passed: %v", bad, got)
		}
	}
}

// TestParseRefusesHostileSchemas: what is not a flat form of the kinds
// MCP allows, or goes past the bounds, is refused.
func TestParseRefusesHostileSchemas(t *testing.T) {
	many := map[string]any{}
	for i := range MaxFields + 1 {
		many[fmt.Sprint("f", i)] = map[string]any{"type": "string"}
	}
	manyFields, _ := json.Marshal(map[string]any{"type": "object", "properties": many})
	choices := make([]string, MaxChoices+1)
	for i := range choices {
		choices[i] = fmt.Sprint("c", i)
	}
	manyChoices, _ := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{"e": map[string]any{"type": "string", "enum": choices}}})
	for name, raw := range map[string]string{
		"not an object":       `{"type":"array"}`,
		"not JSON":            `{"type":`,
		"properties a list":   `{"type":"object","properties":[1]}`,
		"nested":              `{"type":"object","properties":{"o":{"type":"object","properties":{"a":{"type":"string"}}}}}`,
		"object field":        `{"type":"object","properties":{"o":{"type":"object"}}}`,
		"unknown type":        `{"type":"object","properties":{"o":{"type":"null"}}}`,
		"unknown format":      `{"type":"object","properties":{"o":{"type":"string","format":"ipv4"}}}`,
		"lengths reversed":    `{"type":"object","properties":{"o":{"type":"string","minLength":5,"maxLength":2}}}`,
		"negative length":     `{"type":"object","properties":{"o":{"type":"string","minLength":-1}}}`,
		"bounds reversed":     `{"type":"object","properties":{"o":{"type":"number","minimum":5,"maximum":2}}}`,
		"bad default":         `{"type":"object","properties":{"o":{"type":"integer","maximum":2,"default":9}}}`,
		"default wrong type":  `{"type":"object","properties":{"o":{"type":"boolean","default":"yes"}}}`,
		"default not choice":  `{"type":"object","properties":{"o":{"type":"string","enum":["a"],"default":"b"}}}`,
		"enumNames mismatch":  `{"type":"object","properties":{"o":{"type":"string","enum":["a","b"],"enumNames":["A"]}}}`,
		"empty choice":        `{"type":"object","properties":{"o":{"type":"string","oneOf":[{"const":"","title":"x"}]}}}`,
		"choice twice":        `{"type":"object","properties":{"o":{"type":"string","enum":["a","a"]}}}`,
		"array of strings":    `{"type":"object","properties":{"o":{"type":"array","items":{"type":"string"}}}}`,
		"array no items":      `{"type":"object","properties":{"o":{"type":"array"}}}`,
		"required not there":  `{"type":"object","properties":{},"required":["x"]}`,
		"field twice":         `{"type":"object","properties":{"a":{"type":"string"},"a":{"type":"boolean"}}}`,
		"minItems over count": `{"type":"object","properties":{"o":{"type":"array","minItems":3,"items":{"enum":["a"]}}}}`,
		"too many fields":     string(manyFields),
		"too many choices":    string(manyChoices),
		"huge":                `{"type":"object","description":"` + strings.Repeat("x", MaxSchemaBytes) + `"}`,
	} {
		if s, err := Parse(json.RawMessage(raw)); err == nil {
			t.Errorf("%s: passed: %+v", name, s)
		}
	}
	if s, err := Parse(nil); err != nil || len(s.Fields) != 0 {
		t.Errorf("no schema: %+v %v", s, err)
	}
}

// TestShownIsVisibleAndBounded: titles, choices, values and the schema
// passed on show control characters, escape sequences and bidi controls
// as escapes, and are cut.
func TestShownIsVisibleAndBounded(t *testing.T) {
	raw := `{"type":"object","properties":{"q\u001b[2J":{"type":"string","title":"Pick\r\u202eevil` + strings.Repeat("x", 1000) + `",
		"description":"line\u0007","oneOf":[{"const":"a\u001b]52;c;x\u0007","title":"A\u2066\n"},{"const":"b","title":"B"}]}}}`
	s, err := Parse(json.RawMessage(raw))
	if err != nil {
		t.Fatal(err)
	}
	f := &s.Fields[0]
	label := f.Label()
	if strings.ContainsAny(label, "\r\u202e") || !strings.HasPrefix(label, `Pick\r\u202eevil`) || len(label) > MaxLabel+20 {
		t.Errorf("label %q", label)
	}
	bs := f.Buttons("Decline")
	if len(bs) != 2 || bs[0].Title != `A\u2066\n` || bs[0].Value != "a\x1b]52;c;x\a" {
		t.Errorf("buttons %+v", bs)
	}
	wire, _ := json.Marshal(s.Wire())
	// The values keep what the server sent (they go back to it); every
	// text shown is escaped.
	var back map[string]any
	json.Unmarshal(wire, &back)
	p := back["properties"].(map[string]any)["q\x1b[2J"].(map[string]any)
	if title := p["title"].(string); strings.ContainsAny(title, "\r\u202e") {
		t.Errorf("wire title %q", title)
	}
	if d := p["description"].(string); d != `line\a` {
		t.Errorf("wire description %q", d)
	}
	one := p["oneOf"].([]any)[0].(map[string]any)
	if one["const"] != "a\x1b]52;c;x\a" || one["title"] != `A\u2066\n` {
		t.Errorf("wire choice %v", one)
	}
	if got := Shown(strings.Repeat("é", MaxMessage), MaxMessage); len(got) > MaxMessage+len("…") {
		t.Errorf("message not cut: %d bytes", len(got))
	}
}

// TestValueFromText: what a person types is read by the field's kind.
func TestValueFromText(t *testing.T) {
	s, err := Parse(json.RawMessage(everyKind))
	if err != nil {
		t.Fatal(err)
	}
	field := func(name string) *Field { return s.field(name) }
	for _, tc := range []struct {
		field, text string
		want        any
		bad         bool
	}{
		{"name", "Ada", "Ada", false},
		{"name", "", nil, true}, // required, no default
		{"n", "", float64(42), false},
		{"n", "7", float64(7), false},
		{"n", "7.5", nil, true},
		{"ok", "yes", true, false},
		{"ok", "maybe", nil, true},
		{"hero", "2", "h2", false},
		{"hero", "batman", "h2", false},
		{"hero", "3", nil, true},
		{"tags", "1, c", []string{"a", "c"}, false},
		{"tags", "1,1", nil, true},
		{"email", "", nil, false}, // optional
	} {
		v, err := field(tc.field).Value(tc.text)
		if (err != nil) != tc.bad || fmt.Sprint(v) != fmt.Sprint(tc.want) {
			t.Errorf("%s %q: %#v %v", tc.field, tc.text, v, err)
		}
	}
}
