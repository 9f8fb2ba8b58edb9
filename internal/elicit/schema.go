// Package elicit holds what an MCP server's form elicitation asks
// (elicitation/create, mode "form", MCP 2025-11-25): a message and a
// flat schema of primitive fields, read and bounded here (Parse), and the
// user's answer, checked against it before it goes back (Schema.Check,
// Field.Value). The MCP client (internal/mcp) reads the request, the
// agent routes it to the session whose call is running, and each front
// end asks its user in its own way; they share this package's view of
// the form, whose every text is shown through Shown or ShownLine.
package elicit

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Actions: the user's answer to a question.
const (
	Accept  = "accept"
	Decline = "decline"
	Cancel  = "cancel"
)

// Kind is the type of a field.
type Kind string

// Field kinds.
const (
	String  Kind = "string"
	Number  Kind = "number"
	Integer Kind = "integer"
	Boolean Kind = "boolean"
	// Enum: one of Choices (a string).
	Enum Kind = "enum"
	// Multi: any of Choices (an array of strings).
	Multi Kind = "multi"
)

// Bounds on what a server may ask.
const (
	// MaxSchemaBytes bounds the requested schema.
	MaxSchemaBytes = 64 << 10
	// MaxFields bounds the fields of one form.
	MaxFields = 32
	// MaxChoices bounds the choices of one field.
	MaxChoices = 100
	// MaxValueBytes bounds one string answered.
	MaxValueBytes = 16 << 10
	// maxInteger is the largest integer a JSON number holds exactly.
	maxInteger = 1 << 53
)

// Request is a server's question to the user of the session whose call
// is running.
type Request struct {
	// CallID is the tool call the question came during.
	CallID string
	// Server is the MCP server asking.
	Server string
	// Message says what the server asks, as it wrote it (show it
	// through Shown).
	Message string
	// Schema is the form.
	Schema *Schema
}

// Result is the user's answer.
type Result struct {
	// Action is Accept, Decline or Cancel.
	Action string
	// Content holds the values of an accepted form, valid against its
	// schema.
	Content map[string]any
	// Note, when agent-ls answered without asking (a front end that
	// cannot show the form, nobody at the terminal), says why, for the
	// model: it follows the tool's result.
	Note string
}

// Choice is one value of an enum field and its title.
type Choice struct {
	Value string
	Title string
}

// Field is one field of a form.
type Field struct {
	Name        string
	Kind        Kind
	Title       string
	Description string
	Required    bool
	// Format of a String: "", "email", "uri", "date" or "date-time".
	Format string
	// MinLength, MaxLength bound a String, in characters (-1: none).
	MinLength, MaxLength int
	// Minimum, Maximum bound a Number or an Integer (nil: none).
	Minimum, Maximum *float64
	// Choices of an Enum or a Multi.
	Choices []Choice
	// MinItems, MaxItems bound a Multi (-1: none).
	MinItems, MaxItems int
	// Default is the value the server proposes (nil: none): a string,
	// a float64, a bool or a []string, valid for the field.
	Default any
}

// Schema is a form: its fields in the order the server wrote them, the
// required ones first.
type Schema struct {
	Fields []Field
}

// prop is a property of the requested schema as it comes.
type prop struct {
	Type        string          `json:"type"`
	Title       string          `json:"title"`
	Description string          `json:"description"`
	Format      string          `json:"format"`
	MinLength   *int            `json:"minLength"`
	MaxLength   *int            `json:"maxLength"`
	Minimum     *float64        `json:"minimum"`
	Maximum     *float64        `json:"maximum"`
	Enum        []string        `json:"enum"`
	EnumNames   []string        `json:"enumNames"`
	OneOf       []titled        `json:"oneOf"`
	AnyOf       []titled        `json:"anyOf"`
	Items       *prop           `json:"items"`
	MinItems    *int            `json:"minItems"`
	MaxItems    *int            `json:"maxItems"`
	Default     json.RawMessage `json:"default"`
	Properties  map[string]any  `json:"properties"`
}

type titled struct {
	Const string `json:"const"`
	Title string `json:"title"`
}

// Parse reads a requested schema: an object of flat primitive
// properties. Anything else (nesting, another type, an unknown format,
// bounds that contradict each other, a default the field refuses, more
// than the bounds above) is an error: the question is then declined.
func Parse(raw json.RawMessage) (*Schema, error) {
	if len(raw) > MaxSchemaBytes {
		return nil, fmt.Errorf("the schema has %d bytes, more than the %d taken", len(raw), MaxSchemaBytes)
	}
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == "null" {
		return &Schema{}, nil
	}
	var top struct {
		Type       string          `json:"type"`
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return nil, fmt.Errorf("the schema: %w", err)
	}
	if top.Type != "" && top.Type != "object" {
		return nil, fmt.Errorf("the schema is of type %q, not object", top.Type)
	}
	names, props, err := orderedProps(top.Properties)
	if err != nil {
		return nil, err
	}
	s := &Schema{}
	for _, name := range top.Required {
		if _, ok := props[name]; !ok {
			return nil, fmt.Errorf("the required field %q is not in the schema", cut(name))
		}
	}
	for _, name := range names {
		f, err := field(name, props[name])
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", cut(name), err)
		}
		f.Required = slices.Contains(top.Required, name)
		s.Fields = append(s.Fields, f)
	}
	// The required fields come first, in the order "required" lists
	// them: the MCP SDK hands the schema over as a map, which loses the
	// order the server wrote the properties in (they come sorted by
	// name), but not the order of the required list.
	slices.SortStableFunc(s.Fields, func(a, b Field) int {
		return cmp.Compare(requiredAt(top.Required, a), requiredAt(top.Required, b))
	})
	return s, nil
}

// requiredAt is where the field stands in the required list, past its
// end when it is not there.
func requiredAt(required []string, f Field) int {
	if i := slices.Index(required, f.Name); i >= 0 {
		return i
	}
	return len(required)
}

// orderedProps reads the properties object, keeping its order.
func orderedProps(raw json.RawMessage) ([]string, map[string]prop, error) {
	props := map[string]prop{}
	if len(raw) == 0 || string(raw) == "null" {
		return nil, props, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil, errors.New("the schema's properties are not an object")
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("the schema's properties: %w", err)
		}
		name, _ := tok.(string)
		if name == "" {
			return nil, nil, errors.New("a field without a name")
		}
		if _, dup := props[name]; dup {
			return nil, nil, fmt.Errorf("the field %q is given twice", cut(name))
		}
		if len(names) == MaxFields {
			return nil, nil, fmt.Errorf("more than the %d fields taken", MaxFields)
		}
		var p prop
		if err := dec.Decode(&p); err != nil {
			return nil, nil, fmt.Errorf("field %q: %w", cut(name), err)
		}
		names = append(names, name)
		props[name] = p
	}
	return names, props, nil
}

// field reads one property.
func field(name string, p prop) (Field, error) {
	f := Field{Name: name, Title: p.Title, Description: p.Description, MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1}
	if len(p.Properties) > 0 {
		return f, errors.New("nested properties are not taken")
	}
	var err error
	switch p.Type {
	case "string":
		err = stringField(&f, p)
	case "number", "integer":
		f.Kind = Kind(p.Type)
		f.Minimum, f.Maximum = p.Minimum, p.Maximum
		if bad(f.Minimum) || bad(f.Maximum) || (f.Minimum != nil && f.Maximum != nil && *f.Maximum < *f.Minimum) {
			err = errors.New("its minimum and maximum contradict each other")
		}
	case "boolean":
		f.Kind = Boolean
	case "array":
		err = multiField(&f, p)
	default:
		err = fmt.Errorf("the type %q is not taken (string, number, integer, boolean or an array of enums)", cut(p.Type))
	}
	if err != nil {
		return f, err
	}
	if len(p.Default) > 0 && string(p.Default) != "null" {
		var v any
		if err := json.Unmarshal(p.Default, &v); err != nil {
			return f, fmt.Errorf("its default: %w", err)
		}
		d, err := f.Check(v)
		if err != nil {
			return f, fmt.Errorf("its default: %w", err)
		}
		f.Default = d
	}
	return f, nil
}

func bad(f *float64) bool { return f != nil && (math.IsNaN(*f) || math.IsInf(*f, 0)) }

// stringField reads a string, an enum or a titled enum (oneOf).
func stringField(f *Field, p prop) error {
	switch {
	case len(p.Enum) > 0:
		if len(p.EnumNames) > 0 && len(p.EnumNames) != len(p.Enum) {
			return errors.New("its enumNames do not match its enum")
		}
		f.Kind = Enum
		for i, v := range p.Enum {
			c := Choice{Value: v}
			if len(p.EnumNames) > 0 {
				c.Title = p.EnumNames[i]
			}
			f.Choices = append(f.Choices, c)
		}
		return checkChoices(f.Choices)
	case len(p.OneOf) > 0:
		f.Kind = Enum
		for _, t := range p.OneOf {
			f.Choices = append(f.Choices, Choice{Value: t.Const, Title: t.Title})
		}
		return checkChoices(f.Choices)
	}
	f.Kind = String
	switch p.Format {
	case "", "email", "uri", "date", "date-time":
		f.Format = p.Format
	default:
		return fmt.Errorf("the format %q is not taken (email, uri, date, date-time)", cut(p.Format))
	}
	if p.MinLength != nil {
		f.MinLength = *p.MinLength
	}
	if p.MaxLength != nil {
		f.MaxLength = *p.MaxLength
	}
	if p.MinLength != nil && *p.MinLength < 0 || p.MaxLength != nil && *p.MaxLength < 0 ||
		f.MaxLength >= 0 && f.MinLength > f.MaxLength || f.MinLength > MaxValueBytes {
		return errors.New("its minLength and maxLength contradict each other or are out of bounds")
	}
	return nil
}

// multiField reads a multi-select: an array whose items are an enum or
// titled (anyOf).
func multiField(f *Field, p prop) error {
	it := p.Items
	if it == nil {
		return errors.New("an array without items")
	}
	f.Kind = Multi
	switch {
	case len(it.Enum) > 0 && (it.Type == "" || it.Type == "string"):
		for _, v := range it.Enum {
			f.Choices = append(f.Choices, Choice{Value: v})
		}
	case len(it.AnyOf) > 0:
		for _, t := range it.AnyOf {
			f.Choices = append(f.Choices, Choice{Value: t.Const, Title: t.Title})
		}
	default:
		return errors.New("an array is taken only as a multi-select: items with an enum or anyOf")
	}
	if err := checkChoices(f.Choices); err != nil {
		return err
	}
	if p.MinItems != nil {
		f.MinItems = *p.MinItems
	}
	if p.MaxItems != nil {
		f.MaxItems = *p.MaxItems
	}
	if p.MinItems != nil && *p.MinItems < 0 || p.MaxItems != nil && *p.MaxItems < 0 ||
		f.MaxItems >= 0 && f.MinItems > f.MaxItems || f.MinItems > len(f.Choices) {
		return errors.New("its minItems and maxItems contradict each other or its choices")
	}
	return nil
}

// checkChoices refuses no choice, too many, an empty value and a value
// given twice.
func checkChoices(cs []Choice) error {
	if len(cs) == 0 || len(cs) > MaxChoices {
		return fmt.Errorf("%d choices (1 to %d are taken)", len(cs), MaxChoices)
	}
	seen := map[string]bool{}
	for _, c := range cs {
		if c.Value == "" || len(c.Value) > MaxValueBytes {
			return errors.New("a choice is empty or too long")
		}
		if seen[c.Value] {
			return fmt.Errorf("the choice %q is given twice", cut(c.Value))
		}
		seen[c.Value] = true
	}
	return nil
}

// cut bounds a server's text quoted in an error.
func cut(s string) string { return textcut.Cut(s, 100) }
