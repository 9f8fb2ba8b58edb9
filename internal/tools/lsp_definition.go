package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed lsp_definition.md
var lspDefinitionDescription string

// LSPDefinition finds where a symbol is defined, with the editor's
// language servers.
type LSPDefinition struct{}

func (LSPDefinition) Spec() Spec {
	return Spec{Type: Function, Name: "lsp_definition", Description: lspDefinitionDescription, Parameters: positionSchema(true, "")}
}

func (LSPDefinition) Kind() event.ToolKind { return event.KindSearch }
func (LSPDefinition) Mutating(*Call) bool  { return false }

func (LSPDefinition) Title(call *Call) string { return positionTitle("Definition of", call) }

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
