package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed lsp_diagnostics.md
var lspDiagnosticsDescription string

// LSPDiagnostics lists the errors and warnings the editor's language
// servers report, for one file or every open file with problems.
type LSPDiagnostics struct{}

var lspDiagnosticsSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "The file, relative to the working directory or absolute. Leave out for every file open in the editor that has problems."}
  },
  "additionalProperties": false
}`)

func (LSPDiagnostics) Spec() Spec {
	return Spec{Type: Function, Name: "lsp_diagnostics", Description: lspDiagnosticsDescription, Parameters: lspDiagnosticsSchema}
}

func (LSPDiagnostics) Kind() event.ToolKind { return event.KindRead }
func (LSPDiagnostics) Mutating(*Call) bool  { return false }

func (LSPDiagnostics) Title(call *Call) string {
	var a struct {
		Path string `json:"path"`
	}
	_ = json.Unmarshal(call.Arguments, &a)
	if a.Path == "" {
		return "Diagnostics of open files"
	}
	return "Diagnostics of " + a.Path
}

// fileDiagnostics is one entry of a diagnostics answer.
type fileDiagnostics struct {
	URI         string `json:"uri"`
	Diagnostics []struct {
		Range    LSPRange        `json:"range"`
		Severity int             `json:"severity"`
		Code     json.RawMessage `json:"code"`
		Source   string          `json:"source"`
		Message  string          `json:"message"`
	} `json:"diagnostics"`
}

func (LSPDiagnostics) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	lang, err := env.language()
	if err != nil {
		return Output{}, fmt.Errorf("lsp_diagnostics: %w", err)
	}
	var a struct {
		Path string `json:"path"`
	}
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("lsp_diagnostics: invalid arguments: %w", err)
	}
	q := &LanguageQuery{Kind: QueryDiagnostics}
	if a.Path != "" {
		q.Path = resolve(env, a.Path)
	}
	raw, err := lang.Query(ctx, call.CallID, q)
	if err != nil {
		return Output{}, fmt.Errorf("lsp_diagnostics: %w", err)
	}
	var files []fileDiagnostics
	if s := strings.TrimSpace(string(raw)); s != "" && s != "null" {
		if err := json.Unmarshal(raw, &files); err != nil {
			return Output{}, fmt.Errorf("lsp_diagnostics: the editor's answer is not a list of {uri, diagnostics}: %w", err)
		}
	}
	return Output{Text: diagnosticsText(newPlaceText(env, lang.Encoding()), files, a.Path)}, nil
}

// diagnosticsText lists diagnostics as "path:line:column: severity: message
// (source code)", at most maxLanguageResults of them.
func diagnosticsText(p *placeText, files []fileDiagnostics, path string) string {
	var lines []string
	total := 0
	for _, f := range files {
		for _, d := range f.Diagnostics {
			total++
			if len(lines) == maxLanguageResults {
				continue
			}
			where, _ := p.where(f.URI, d.Range.Start)
			line := fmt.Sprintf("%s: %s: %s", where, severity(d.Severity), strings.TrimSpace(d.Message))
			var tag []string
			if d.Source != "" {
				tag = append(tag, d.Source)
			}
			if c := strings.Trim(string(d.Code), `"`); c != "" && c != "null" {
				tag = append(tag, c)
			}
			if len(tag) > 0 {
				line += " (" + strings.Join(tag, " ") + ")"
			}
			lines = append(lines, line)
		}
	}
	if total == 0 {
		if path != "" {
			return "No problems reported for " + path + "."
		}
		return "No problems reported in the files open in the editor."
	}
	return strings.Join(lines, "\n") + moreLine(total, len(lines), "diagnostics")
}
