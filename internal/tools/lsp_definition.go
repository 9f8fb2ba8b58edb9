package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed lsp_definition.md
var lspDefinitionDescription string

// LSPDefinition finds where a symbol is defined, with the editor's
// language servers.
type LSPDefinition struct{}

// positionSchema is the schema of a tool that points at a place in a
// file; extra adds properties.
func positionSchema(symbol bool, extra string) json.RawMessage {
	props := `"path": {"type": "string", "description": "The file, relative to the working directory or absolute."},
    "line": {"type": "integer", "minimum": 1, "description": "1-based line, as read_file numbers it."},
    "column": {"type": "integer", "minimum": 1, "description": "1-based column in characters (Unicode code points) of the line, on the symbol."}`
	if symbol {
		props += `,
    "symbol": {"type": "string", "description": "Instead of column: the identifier on that line (its first occurrence)."}`
	}
	required := `["path", "line", "column"]`
	if symbol {
		required = `["path", "line"]`
	}
	return json.RawMessage(`{
  "type": "object",
  "properties": {
    ` + props + extra + `
  },
  "required": ` + required + `,
  "additionalProperties": false
}`)
}

func (LSPDefinition) Spec() Spec {
	return Spec{Type: Function, Name: "lsp_definition", Description: lspDefinitionDescription, Parameters: positionSchema(true, "")}
}

func (LSPDefinition) Kind() event.ToolKind { return event.KindSearch }
func (LSPDefinition) Mutating(*Call) bool  { return false }

func (LSPDefinition) Title(call *Call) string { return positionTitle("Definition of", call) }

// positionTitle is "<verb> symbol at path:line[:column]".
func positionTitle(verb string, call *Call) string {
	var a positionArgs
	_ = json.Unmarshal(call.Arguments, &a)
	if a.Symbol != "" {
		return fmt.Sprintf("%s %s at %s:%d", verb, a.Symbol, a.Path, a.Line)
	}
	return fmt.Sprintf("%s %s:%d:%d", verb, a.Path, a.Line, a.Column)
}

func (LSPDefinition) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	raw, p, err := positionQuery(ctx, env, call, QueryDefinition, nil)
	if err != nil {
		return Output{}, fmt.Errorf("lsp_definition: %w", err)
	}
	locs, err := parseLocations(raw)
	if err != nil {
		return Output{}, fmt.Errorf("lsp_definition: %w", err)
	}
	if len(locs) == 0 {
		return Output{Text: "No definition found: the language server knows none for this place (check the line and column, or use grep_files)."}, nil
	}
	return Output{Text: locationsText(p, locs, "definitions")}, nil
}

// positionQuery asks the editor about the place the call's arguments
// point at and returns its answer, and the placeText to show results
// with.
func positionQuery(ctx context.Context, env *Env, call *Call, kind LanguageKind, q *LanguageQuery) (json.RawMessage, *placeText, error) {
	lang, err := env.language()
	if err != nil {
		return nil, nil, err
	}
	var a positionArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return nil, nil, fmt.Errorf("invalid arguments: %w", err)
	}
	enc := lang.Encoding()
	abs, pos, err := locate(env, a, enc)
	if err != nil {
		return nil, nil, err
	}
	if q == nil {
		q = &LanguageQuery{}
	}
	q.Kind, q.Path, q.Position = kind, abs, &pos
	raw, err := lang.Query(ctx, call.CallID, q)
	if err != nil {
		return nil, nil, err
	}
	return raw, newPlaceText(env, enc), nil
}
