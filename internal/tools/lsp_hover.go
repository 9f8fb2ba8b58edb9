package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

//go:embed lsp_hover.md
var lspHoverDescription string

// LSPHover shows a symbol's type and documentation, with the editor's
// language servers.
type LSPHover struct{}

// maxHoverBytes bounds the hover text given to the model.
const maxHoverBytes = 8 << 10

func (LSPHover) Spec() Spec {
	return Spec{Type: Function, Name: "lsp_hover", Description: lspHoverDescription, Parameters: positionSchema(true, "")}
}

func (LSPHover) Kind() event.ToolKind { return event.KindRead }
func (LSPHover) Mutating(*Call) bool  { return false }

func (LSPHover) Title(call *Call) string { return positionTitle("Hover", call) }

func (LSPHover) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	raw, _, err := positionQuery(ctx, env, call, QueryHover, nil)
	if err != nil {
		return Output{}, fmt.Errorf("lsp_hover: %w", err)
	}
	text, err := hoverText(raw)
	if err != nil {
		return Output{}, fmt.Errorf("lsp_hover: %w", err)
	}
	if text == "" {
		return Output{Text: "No hover information at this place."}, nil
	}
	return Output{Text: textcut.Cut(text, maxHoverBytes)}, nil
}
