package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed lsp_document_symbols.md
var lspDocumentSymbolsDescription string

// LSPDocumentSymbols outlines one file: its symbols, nested, with the
// editor's language servers.
type LSPDocumentSymbols struct{}

var lspDocumentSymbolsSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "The file, relative to the working directory or absolute."}
  },
  "required": ["path"],
  "additionalProperties": false
}`)

// maxOutlineSymbols bounds the symbols of one outline.
const maxOutlineSymbols = 200

func (LSPDocumentSymbols) Spec() Spec {
	return Spec{Type: Function, Name: "lsp_document_symbols", Description: lspDocumentSymbolsDescription, Parameters: lspDocumentSymbolsSchema}
}

func (LSPDocumentSymbols) Kind() event.ToolKind { return event.KindRead }
func (LSPDocumentSymbols) Mutating(*Call) bool  { return false }

func (LSPDocumentSymbols) Title(call *Call) string {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(call.Arguments, &a)
	return "Outline of " + a.Path
}

// documentSymbol is an LSP DocumentSymbol, or a SymbolInformation (whose
// location stands for its range).
type documentSymbol struct {
	Name           string           `json:"name"`
	Detail         string           `json:"detail"`
	Kind           int              `json:"kind"`
	SelectionRange *LSPRange        `json:"selectionRange"`
	Range          *LSPRange        `json:"range"`
	Children       []documentSymbol `json:"children"`
	ContainerName  string           `json:"containerName"`
	Location       *struct {
		Range LSPRange `json:"range"`
	} `json:"location"`
}

func (s *documentSymbol) start() LSPPosition {
	switch {
	case s.SelectionRange != nil:
		return s.SelectionRange.Start
	case s.Range != nil:
		return s.Range.Start
	case s.Location != nil:
		return s.Location.Range.Start
	}
	return LSPPosition{}
}

func (LSPDocumentSymbols) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	lang, err := env.language()
	if err != nil {
		return Output{}, fmt.Errorf("lsp_document_symbols: %w", err)
	}
	var a struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(call.Arguments, &a); err != nil || a.Path == "" {
		return Output{}, fmt.Errorf("lsp_document_symbols: invalid arguments: path is required")
	}
	abs := resolve(env, a.Path)
	raw, err := lang.Query(ctx, call.CallID, &LanguageQuery{Kind: QueryDocumentSymbols, Path: abs})
	if err != nil {
		return Output{}, fmt.Errorf("lsp_document_symbols: %w", err)
	}
	var syms []documentSymbol
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		if err := json.Unmarshal(raw, &syms); err != nil {
			return Output{}, fmt.Errorf("lsp_document_symbols: the editor's answer is not a list of symbols: %w", err)
		}
	}
	if len(syms) == 0 {
		return Output{Text: "No symbols in " + a.Path + "."}, nil
	}
	o := &outline{p: newPlaceText(env, lang.Encoding()), path: abs}
	o.add(syms, 0)
	text := strings.Join(o.lines, "\n") + moreLine(o.total, len(o.lines), "symbols")
	return Output{Text: text}, nil
}

// outline renders a file's symbols, one a line, children indented.
type outline struct {
	p     *placeText
	path  string
	lines []string
	total int
}

func (o *outline) add(syms []documentSymbol, depth int) {
	for i := range syms {
		s := &syms[i]
		o.total++
		if len(o.lines) < maxOutlineSymbols {
			pos := s.start()
			where, _ := o.p.where(fileURI(o.path), pos)
			line := fmt.Sprintf("%s%s %s", strings.Repeat("  ", depth), symbolKind(s.Kind), s.Name)
			if s.Detail != "" {
				line += " " + s.Detail
			}
			o.lines = append(o.lines, line+"  "+lineColumn(where))
		}
		o.add(s.Children, depth+1)
	}
}

// lineColumn is the "line:column" end of "path:line:column".
func lineColumn(where string) string {
	i := strings.LastIndexByte(where, ':')
	if i < 0 {
		return where
	}
	j := strings.LastIndexByte(where[:i], ':')
	return where[j+1:]
}

// fileURI is the file:// URI of an absolute path.
func fileURI(path string) string {
	p := filepath.ToSlash(path)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String()
}
