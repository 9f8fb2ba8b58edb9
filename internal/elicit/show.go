package elicit

import (
	"fmt"
	"strings"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Bounds of what is shown of a server's text.
const (
	// MaxMessage bounds the message shown.
	MaxMessage = 4 << 10
	// MaxLabel bounds a title, a description or a choice shown.
	MaxLabel = 200
)

// Shown is a server's text (the message) as a person sees it: cut to n
// bytes, its control characters, escape sequences and bidi controls
// written as visible escapes (textcut.Visible).
func Shown(s string, n int) string { return textcut.Visible(textcut.Cut(s, n)) }

// ShownLine is Shown for text on one line (a title, a choice): newlines
// and tabs escaped too.
func ShownLine(s string, n int) string { return textcut.VisibleLine(textcut.Cut(s, n)) }

// Label is the field's title, or its name, as shown.
func (f *Field) Label() string {
	if f.Title != "" {
		return ShownLine(f.Title, MaxLabel)
	}
	return ShownLine(f.Name, MaxLabel)
}

// Label is the choice's title, or its value, as shown.
func (c Choice) Label() string {
	if c.Title != "" {
		return ShownLine(c.Title, MaxLabel)
	}
	return ShownLine(c.Value, MaxLabel)
}

// Hint says what the field takes, for a person typing it: the type, the
// format, the bounds, the default; the choices are listed apart.
func (f *Field) Hint() string {
	var parts []string
	switch f.Kind {
	case String:
		parts = append(parts, "text")
		if f.Format != "" {
			parts[0] = f.Format
		}
		if f.MinLength > 0 {
			parts = append(parts, fmt.Sprintf("at least %d characters", f.MinLength))
		}
		if f.MaxLength >= 0 {
			parts = append(parts, fmt.Sprintf("at most %d characters", f.MaxLength))
		}
	case Number, Integer:
		parts = append(parts, map[Kind]string{Number: "a number", Integer: "a whole number"}[f.Kind])
		if f.Minimum != nil {
			parts = append(parts, "from "+num(*f.Minimum))
		}
		if f.Maximum != nil {
			parts = append(parts, "up to "+num(*f.Maximum))
		}
	case Boolean:
		parts = append(parts, "yes or no")
	case Enum:
		parts = append(parts, "one of the choices, by number")
	case Multi:
		parts = append(parts, "any of the choices, by number, separated by commas")
	}
	if f.Required {
		parts = append(parts, "required")
	} else {
		parts = append(parts, "optional")
	}
	if f.Default != nil {
		parts = append(parts, "default "+f.ShownValue(f.Default))
	}
	return strings.Join(parts, ", ")
}

// ShownValue is a value of the field as shown: a choice by its label.
func (f *Field) ShownValue(v any) string {
	switch x := v.(type) {
	case string:
		for _, c := range f.Choices {
			if c.Value == x {
				return c.Label()
			}
		}
		return ShownLine(x, MaxLabel)
	case []string:
		shown := make([]string, len(x))
		for i, s := range x {
			shown[i] = f.ShownValue(s)
		}
		return strings.Join(shown, ", ")
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case float64:
		return num(x)
	}
	return ShownLine(fmt.Sprint(v), MaxLabel)
}

// OneChoice is the form's only field when it is an enum or a boolean,
// which a front end without forms can ask as buttons (Buttons).
func (s *Schema) OneChoice() (*Field, bool) {
	if s == nil || len(s.Fields) != 1 {
		return nil, false
	}
	f := &s.Fields[0]
	return f, f.Kind == Enum || f.Kind == Boolean
}

// Button is one answer of a one-field form asked as buttons.
type Button struct {
	// Title is what the button shows, unique among the buttons.
	Title string
	// Value is the field's value it answers.
	Value any
}

// Buttons are the answers of a one-choice field: its choices, or yes
// and no, each titled as shown and made unique, none titled as one of
// reserved (the front end's own buttons, such as Decline).
func (f *Field) Buttons(reserved ...string) []Button {
	var bs []Button
	seen := map[string]bool{}
	for _, r := range reserved {
		seen[r] = true
	}
	add := func(title string, v any) {
		t := title
		for n := 2; seen[t]; n++ {
			t = fmt.Sprintf("%s (%d)", title, n)
		}
		seen[t] = true
		bs = append(bs, Button{Title: t, Value: v})
	}
	if f.Kind == Boolean {
		add("Yes", true)
		add("No", false)
		return bs
	}
	for _, c := range f.Choices {
		add(c.Label(), c.Value)
	}
	return bs
}

// Wire is the schema as agent-ls passes it on to a client that shows
// forms: only what Parse took, every title and description made visible
// and bounded, every choice titled (oneOf and anyOf of const and title).
func (s *Schema) Wire() map[string]any {
	props := map[string]any{}
	required := []string{}
	for _, f := range s.Fields {
		props[f.Name] = f.wire()
		if f.Required {
			required = append(required, f.Name)
		}
	}
	return map[string]any{"type": "object", "properties": props, "required": required}
}

func (f *Field) wire() map[string]any {
	p := map[string]any{"title": f.Label()}
	if f.Description != "" {
		p["description"] = Shown(f.Description, MaxMessage)
	}
	choices := func() []any {
		var cs []any
		for _, c := range f.Choices {
			cs = append(cs, map[string]any{"const": c.Value, "title": c.Label()})
		}
		return cs
	}
	switch f.Kind {
	case String:
		p["type"] = "string"
		setIf(p, "format", f.Format, f.Format != "")
		setIf(p, "minLength", f.MinLength, f.MinLength >= 0)
		setIf(p, "maxLength", f.MaxLength, f.MaxLength >= 0)
	case Number, Integer:
		p["type"] = string(f.Kind)
		setIf(p, "minimum", f.Minimum, f.Minimum != nil)
		setIf(p, "maximum", f.Maximum, f.Maximum != nil)
	case Boolean:
		p["type"] = "boolean"
	case Enum:
		p["type"] = "string"
		p["oneOf"] = choices()
	case Multi:
		p["type"] = "array"
		p["items"] = map[string]any{"anyOf": choices()}
		setIf(p, "minItems", f.MinItems, f.MinItems >= 0)
		setIf(p, "maxItems", f.MaxItems, f.MaxItems >= 0)
	}
	setIf(p, "default", f.Default, f.Default != nil)
	return p
}

func setIf(m map[string]any, k string, v any, ok bool) {
	if ok {
		m[k] = v
	}
}
