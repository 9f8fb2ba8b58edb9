package elicit

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/mail"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Check checks content, an accepted form's values, against the schema
// and returns them as they go to the server: every field known, every
// value of its field's type and within its bounds, every required field
// there (a missing one takes its default). Anything else is an error: an
// answer that fails it is asked again or declined, never sent.
func (s *Schema) Check(content map[string]any) (map[string]any, error) {
	out := map[string]any{}
	for name := range content {
		if s.field(name) == nil {
			return nil, fmt.Errorf("%q is not a field of the form", cut(name))
		}
	}
	for _, f := range s.Fields {
		v, ok := content[f.Name]
		if !ok || v == nil {
			switch {
			case f.Default != nil:
				out[f.Name] = f.Default
			case f.Required:
				return nil, fmt.Errorf("%s is required", f.Label())
			}
			continue
		}
		c, err := f.Check(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Label(), err)
		}
		out[f.Name] = c
	}
	return out, nil
}

func (s *Schema) field(name string) *Field {
	for i := range s.Fields {
		if s.Fields[i].Name == name {
			return &s.Fields[i]
		}
	}
	return nil
}

// Check checks one value, as JSON decodes it (a string, a float64 or a
// json.Number, a bool, a []any or []string), and returns it as it goes to
// the server, or nil and what is wrong.
func (f *Field) Check(v any) (any, error) {
	c, err := f.check(v)
	if err != nil {
		return nil, err
	}
	return c, nil
}

func (f *Field) check(v any) (any, error) {
	switch f.Kind {
	case String:
		s, ok := v.(string)
		if !ok {
			return nil, errors.New("not a string")
		}
		return s, f.checkString(s)
	case Number, Integer:
		n, err := number(v)
		if err != nil {
			return nil, err
		}
		return n, f.checkNumber(n)
	case Boolean:
		b, ok := v.(bool)
		if !ok {
			return nil, errors.New("not true or false")
		}
		return b, nil
	case Enum:
		s, ok := v.(string)
		if !ok || !f.has(s) {
			return nil, errors.New("not one of the choices")
		}
		return s, nil
	case Multi:
		return f.checkMulti(v)
	}
	return nil, fmt.Errorf("a field of unknown kind %q", f.Kind)
}

func number(v any) (float64, error) {
	var n float64
	switch x := v.(type) {
	case float64:
		n = x
	case int:
		n = float64(x)
	case int64:
		n = float64(x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return 0, errors.New("not a number")
		}
		n = f
	default:
		return 0, errors.New("not a number")
	}
	if math.IsNaN(n) || math.IsInf(n, 0) {
		return 0, errors.New("not a finite number")
	}
	return n, nil
}

func (f *Field) checkString(s string) error {
	if len(s) > MaxValueBytes {
		return fmt.Errorf("longer than the %d bytes taken", MaxValueBytes)
	}
	if !utf8.ValidString(s) {
		return errors.New("not valid UTF-8")
	}
	n := utf8.RuneCountInString(s)
	if f.MinLength >= 0 && n < f.MinLength {
		return fmt.Errorf("at least %d characters", f.MinLength)
	}
	if f.MaxLength >= 0 && n > f.MaxLength {
		return fmt.Errorf("at most %d characters", f.MaxLength)
	}
	switch f.Format {
	case "email":
		a, err := mail.ParseAddress(s)
		if err != nil || a.Address != s {
			return errors.New("not an email address")
		}
	case "uri":
		u, err := url.Parse(s)
		if err != nil || u.Scheme == "" || strings.ContainsAny(s, " \t\r\n") {
			return errors.New("not an absolute URI")
		}
	case "date":
		if _, err := time.Parse(time.DateOnly, s); err != nil {
			return errors.New("not a date (YYYY-MM-DD)")
		}
	case "date-time":
		if _, err := time.Parse(time.RFC3339, s); err != nil {
			return errors.New("not a date and time (RFC 3339, such as 2025-11-25T14:30:00Z)")
		}
	}
	return nil
}

func (f *Field) checkNumber(n float64) error {
	if f.Kind == Integer && (n != math.Trunc(n) || math.Abs(n) > maxInteger) {
		return errors.New("not a whole number")
	}
	if f.Minimum != nil && n < *f.Minimum {
		return fmt.Errorf("less than %s", num(*f.Minimum))
	}
	if f.Maximum != nil && n > *f.Maximum {
		return fmt.Errorf("more than %s", num(*f.Maximum))
	}
	return nil
}

func (f *Field) checkMulti(v any) ([]string, error) {
	var list []string
	switch x := v.(type) {
	case []string:
		list = x
	case []any:
		for _, e := range x {
			s, ok := e.(string)
			if !ok {
				return nil, errors.New("not a list of choices")
			}
			list = append(list, s)
		}
	default:
		return nil, errors.New("not a list of choices")
	}
	for i, s := range list {
		if !f.has(s) {
			return nil, errors.New("not a list of the choices")
		}
		if slices.Contains(list[:i], s) {
			return nil, errors.New("a choice picked twice")
		}
	}
	if f.MinItems >= 0 && len(list) < f.MinItems {
		return nil, fmt.Errorf("pick at least %d", f.MinItems)
	}
	if f.MaxItems >= 0 && len(list) > f.MaxItems {
		return nil, fmt.Errorf("pick at most %d", f.MaxItems)
	}
	if list == nil {
		list = []string{}
	}
	return list, nil
}

func (f *Field) has(v string) bool {
	return slices.ContainsFunc(f.Choices, func(c Choice) bool { return c.Value == v })
}

// Value reads what a person typed for the field: a string as it is, a
// number, true or false (yes, no, y, n), a choice by its number in the
// list (from 1), its value or its title, a multi-select as such choices
// separated by commas. Empty text is the default, or no value (nil) for
// a field not required; else an error says what is wanted.
func (f *Field) Value(text string) (any, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		switch {
		case f.Default != nil:
			return f.Default, nil
		case f.Required:
			return nil, errors.New("an answer is required")
		}
		return nil, nil
	}
	var v any
	switch f.Kind {
	case String:
		v = text
	case Number, Integer:
		n, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return nil, errors.New("not a number")
		}
		v = n
	case Boolean:
		switch strings.ToLower(t) {
		case "y", "yes", "true":
			v = true
		case "n", "no", "false":
			v = false
		default:
			return nil, errors.New("answer yes or no")
		}
	case Enum:
		c, err := f.choice(t)
		if err != nil {
			return nil, err
		}
		v = c
	case Multi:
		var list []string
		for _, part := range strings.Split(t, ",") {
			c, err := f.choice(strings.TrimSpace(part))
			if err != nil {
				return nil, err
			}
			list = append(list, c)
		}
		v = list
	}
	return f.Check(v)
}

// choice is the value of a choice named by its number, value or title.
func (f *Field) choice(t string) (string, error) {
	if i, err := strconv.Atoi(t); err == nil && i >= 1 && i <= len(f.Choices) {
		return f.Choices[i-1].Value, nil
	}
	for _, c := range f.Choices {
		if c.Value == t || c.Title != "" && strings.EqualFold(c.Title, t) {
			return c.Value, nil
		}
	}
	return "", fmt.Errorf("%q is not one of the choices", ShownLine(t, 60))
}

// num writes a bound for people.
func num(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }
