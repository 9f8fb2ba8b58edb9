package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed lsp_references.md
var lspReferencesDescription string

// LSPReferences lists the uses of a symbol, with the editor's language
// servers.
type LSPReferences struct{}

func (LSPReferences) Spec() Spec {
	return Spec{Type: Function, Name: "lsp_references", Description: lspReferencesDescription, Parameters: positionSchema(true, `,
    "include_declaration": {"type": "boolean", "description": "Also list the declaration itself. Default true."}`)}
}

func (LSPReferences) Kind() event.ToolKind { return event.KindSearch }
func (LSPReferences) Mutating(*Call) bool  { return false }

func (LSPReferences) Title(call *Call) string { return positionTitle("References to", call) }

func (LSPReferences) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a struct {
		IncludeDeclaration *bool `json:"include_declaration"`
	}
	_ = json.Unmarshal(call.Arguments, &a)
	include := true
	if a.IncludeDeclaration != nil {
		include = *a.IncludeDeclaration
	}
	raw, p, err := positionQuery(ctx, env, call, QueryReferences, &LanguageQuery{IncludeDeclaration: &include})
	if err != nil {
		return Output{}, fmt.Errorf("lsp_references: %w", err)
	}
	locs, err := parseLocations(raw)
	if err != nil {
		return Output{}, fmt.Errorf("lsp_references: %w", err)
	}
	if len(locs) == 0 {
		return Output{Text: "No references found."}, nil
	}
	return Output{Text: fmt.Sprintf("%d references:\n%s", len(locs), locationsText(p, locs, "references"))}, nil
}
