package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

// compiledSchema is one tool's parameter schema, compiled on first use.
type compiledSchema struct {
	once   sync.Once
	schema *jsonschema.Schema
	err    error
}

var printer = message.NewPrinter(language.English)

// schemaFor returns the compiled parameter schema of h, compiling it once.
// A tool without parameters has no schema (nil, nil).
func (r *Registry) schemaFor(name string, h Handler) (*jsonschema.Schema, error) {
	v, _ := r.schemas.LoadOrStore(name, &compiledSchema{})
	cs := v.(*compiledSchema)
	cs.once.Do(func() {
		params := h.Spec().Parameters
		if len(bytes.TrimSpace(params)) == 0 {
			return
		}
		cs.schema, cs.err = compileSchema(name, params)
	})
	return cs.schema, cs.err
}

func compileSchema(name string, params json.RawMessage) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(params))
	if err != nil {
		return nil, fmt.Errorf("parameters schema of %s: %w", name, err)
	}
	url := "tool:///" + name + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, fmt.Errorf("parameters schema of %s: %w", name, err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("parameters schema of %s: %w", name, err)
	}
	return sch, nil
}

// validateArguments checks args (already known to be a JSON object or
// empty) against the tool's schema and describes every problem at once.
func validateArguments(sch *jsonschema.Schema, args json.RawMessage) error {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage(`{}`)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(args))
	if err != nil {
		return fmt.Errorf("arguments must be a JSON object: %w", err)
	}
	err = sch.Validate(inst)
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return err
	}
	var problems []string
	collectProblems(ve, inst, &problems)
	slices.Sort(problems) // the validator's order follows map iteration
	if len(problems) == 0 {
		problems = append(problems, "- "+ve.ErrorKind.LocalizedString(printer))
	}
	n := "1 problem"
	if len(problems) != 1 {
		n = fmt.Sprintf("%d problems", len(problems))
	}
	return fmt.Errorf("invalid arguments (%s); fix all of them and call again:\n%s", n, strings.Join(problems, "\n"))
}

// collectProblems appends one line per leaf error of ve: where it is (a
// JSON pointer into the arguments) and what is wrong.
func collectProblems(ve *jsonschema.ValidationError, inst any, out *[]string) {
	if len(ve.Causes) > 0 {
		for _, c := range ve.Causes {
			collectProblems(c, inst, out)
		}
		return
	}
	where := "at the top level"
	if len(ve.InstanceLocation) > 0 {
		var b strings.Builder
		for _, tok := range ve.InstanceLocation {
			b.WriteByte('/')
			tok = strings.ReplaceAll(tok, "~", "~0")
			b.WriteString(strings.ReplaceAll(tok, "/", "~1"))
		}
		where = fmt.Sprintf("at %s (argument `%s`)", b.String(), strings.Join(ve.InstanceLocation, "."))
	}
	line := "- " + where + ": " + ve.ErrorKind.LocalizedString(printer)
	if v, ok := valueAt(inst, ve.InstanceLocation); ok && len(ve.InstanceLocation) > 0 {
		if b, err := json.Marshal(v); err == nil && len(b) <= 80 {
			line += "; got " + string(b)
		}
	}
	for _, seen := range *out {
		if seen == line {
			return
		}
	}
	*out = append(*out, line)
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
