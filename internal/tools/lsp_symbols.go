package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed lsp_symbols.md
var lspSymbolsDescription string

// LSPSymbols searches the workspace's symbols by name, with the editor's
// language servers.
type LSPSymbols struct{}

var lspSymbolsSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "query": {"type": "string", "description": "The symbol's name or part of it."}
  },
  "required": ["query"],
  "additionalProperties": false
}`)

func (LSPSymbols) Spec() Spec {
	return Spec{Type: Function, Name: "lsp_symbols", Description: lspSymbolsDescription, Parameters: lspSymbolsSchema}
}

func (LSPSymbols) Kind() event.ToolKind { return event.KindSearch }
func (LSPSymbols) Mutating(*Call) bool  { return false }

type lspSymbolsArgs struct {
	Query string `json:"query"`
}

func (LSPSymbols) Title(call *Call) string {
	var a lspSymbolsArgs
	_ = json.Unmarshal(call.Arguments, &a)
	return "Symbols matching " + a.Query
}

// symbolInformation is an LSP SymbolInformation or WorkspaceSymbol.
type symbolInformation struct {
	Name          string `json:"name"`
	Kind          int    `json:"kind"`
	ContainerName string `json:"containerName"`
	Location      struct {
		URI   string    `json:"uri"`
		Range *LSPRange `json:"range"`
	} `json:"location"`
}

func (LSPSymbols) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	lang, err := env.language()
	if err != nil {
		return Output{}, fmt.Errorf("lsp_symbols: %w", err)
	}
	var a lspSymbolsArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("lsp_symbols: invalid arguments: %w", err)
	}
	if strings.TrimSpace(a.Query) == "" {
		return Output{}, errors.New("lsp_symbols: query is empty: give a name or part of one")
	}
	raw, err := lang.Query(ctx, call.CallID, &LanguageQuery{Kind: QueryWorkspaceSymbols, Query: a.Query})
	if err != nil {
		return Output{}, fmt.Errorf("lsp_symbols: %w", err)
	}
	var syms []symbolInformation
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		if err := json.Unmarshal(raw, &syms); err != nil {
			return Output{}, fmt.Errorf("lsp_symbols: the editor's answer is not a list of symbols: %w", err)
		}
	}
	if len(syms) == 0 {
		return Output{Text: fmt.Sprintf("No symbols match %q.", a.Query)}, nil
	}
	p := newPlaceText(env, lang.Encoding())
	var b strings.Builder
	for i, s := range syms[:min(len(syms), maxLanguageResults)] {
		if i > 0 {
			b.WriteByte('\n')
		}
		var pos LSPPosition
		if s.Location.Range != nil {
			pos = s.Location.Range.Start
		}
		where, _ := p.where(s.Location.URI, pos)
		fmt.Fprintf(&b, "%s: %s %s", where, symbolKind(s.Kind), s.Name)
		if s.ContainerName != "" {
			fmt.Fprintf(&b, " (in %s)", s.ContainerName)
		}
	}
	b.WriteString(moreLine(len(syms), min(len(syms), maxLanguageResults), "symbols"))
	return Output{Text: b.String()}, nil
}
