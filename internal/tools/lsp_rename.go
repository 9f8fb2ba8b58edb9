package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

//go:embed lsp_rename.md
var lspRenameDescription string

// LSPRename renames a symbol everywhere it is used, with the editor's
// language servers. Their WorkspaceEdit becomes a change set like a
// patch: approved (or reviewed), journaled, applied through the editor
// and undone with the turn.
type LSPRename struct{}

func (LSPRename) Spec() Spec {
	return Spec{Type: Function, Name: "lsp_rename", Description: lspRenameDescription, Parameters: json.RawMessage(`{
  "type": "object",
  "properties": {
    "path": {"type": "string", "description": "The file, relative to the working directory or absolute."},
    "line": {"type": "integer", "minimum": 1, "description": "1-based line, as read_file numbers it."},
    "column": {"type": "integer", "minimum": 1, "description": "1-based column in characters (Unicode code points) of the line, on the symbol."},
    "new_name": {"type": "string", "description": "The symbol's new name."}
  },
  "required": ["path", "line", "column", "new_name"],
  "additionalProperties": false
}`)}
}

func (LSPRename) Kind() event.ToolKind { return event.KindEdit }
func (LSPRename) Mutating(*Call) bool  { return true }

type lspRenameArgs struct {
	NewName string `json:"new_name"`
}

func (LSPRename) Title(call *Call) string {
	var a lspRenameArgs
	_ = json.Unmarshal(call.Arguments, &a)
	return positionTitle("Rename to "+a.NewName+":", call)
}

func (LSPRename) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a lspRenameArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("lsp_rename: invalid arguments: %w", err)
	}
	if strings.TrimSpace(a.NewName) == "" {
		return Output{}, errors.New("lsp_rename: new_name is empty")
	}
	raw, p, err := positionQuery(ctx, env, call, QueryRename, &LanguageQuery{NewName: a.NewName})
	if err != nil {
		return Output{}, fmt.Errorf("lsp_rename: %w", err)
	}
	edits, err := parseWorkspaceEdit(raw)
	if err != nil {
		return Output{}, fmt.Errorf("lsp_rename: %w", err)
	}
	if len(edits) == 0 {
		return Output{Text: "The language server made no change: nothing to rename at this place.", Failed: true}, nil
	}
	cs := &workspace.ChangeSet{Label: "agent-ls: " + LSPRename{}.Title(call)}
	var summary []string
	for _, fe := range edits {
		path, ok := uriPath(fe.uri)
		if !ok {
			return Output{}, fmt.Errorf("lsp_rename: the rename edits %s, which is not a file", fe.uri)
		}
		old, err := currentContent(env, path)
		if err != nil {
			return Output{}, fmt.Errorf("lsp_rename: %w", err)
		}
		if old == nil {
			return Output{}, fmt.Errorf("lsp_rename: the rename edits %s, which does not exist", path)
		}
		updated, err := applyTextEdits(string(old), fe.edits, p.enc)
		if err != nil {
			return Output{}, fmt.Errorf("lsp_rename: %s: %w", p.display(path), err)
		}
		cs.Changes = append(cs.Changes, workspace.FileChange{Kind: workspace.Update, Path: path, OldContent: old, NewContent: []byte(updated)})
		summary = append(summary, fmt.Sprintf("M %s (%d edits)", p.display(path), len(fe.edits)))
	}
	files := "1 file"
	if len(cs.Changes) > 1 {
		files = fmt.Sprintf("%d files", len(cs.Changes))
	}
	return changeFiles(ctx, env, call, cs, fmt.Sprintf("Renamed to %s in %s:\n%s", a.NewName, files, strings.Join(summary, "\n")))
}

// textEdit is an LSP TextEdit (or AnnotatedTextEdit).
type textEdit struct {
	Range   LSPRange `json:"range"`
	NewText string   `json:"newText"`
}

// fileEdits are the edits of one file.
type fileEdits struct {
	uri   string
	edits []textEdit
}

// parseWorkspaceEdit reads a WorkspaceEdit's text edits per file, in the
// order they come: documentChanges when present, else changes. Creating,
// renaming or deleting files is refused: a symbol's rename does not need
// it, and the model should do it with apply_patch where it does.
func parseWorkspaceEdit(raw json.RawMessage) ([]fileEdits, error) {
	if s := strings.TrimSpace(string(raw)); s == "" || s == "null" {
		return nil, nil
	}
	var we struct {
		Changes         map[string][]textEdit `json:"changes"`
		DocumentChanges []json.RawMessage     `json:"documentChanges"`
	}
	if err := json.Unmarshal(raw, &we); err != nil {
		return nil, fmt.Errorf("the editor's answer is not a WorkspaceEdit: %w", err)
	}
	var out []fileEdits
	add := func(uri string, edits []textEdit) {
		i := slices.IndexFunc(out, func(f fileEdits) bool { return f.uri == uri })
		if i < 0 {
			out = append(out, fileEdits{uri: uri})
			i = len(out) - 1
		}
		out[i].edits = append(out[i].edits, edits...)
	}
	if we.DocumentChanges != nil {
		for _, dc := range we.DocumentChanges {
			var d struct {
				Kind         string `json:"kind"`
				TextDocument struct {
					URI string `json:"uri"`
				} `json:"textDocument"`
				Edits []textEdit `json:"edits"`
			}
			if err := json.Unmarshal(dc, &d); err != nil {
				return nil, fmt.Errorf("the editor's answer has a document change that is not a TextDocumentEdit: %w", err)
			}
			if d.Kind != "" {
				return nil, fmt.Errorf("the rename would also %s a file, which lsp_rename does not do: rename the symbol with apply_patch instead", d.Kind)
			}
			add(d.TextDocument.URI, d.Edits)
		}
		return out, nil
	}
	for _, uri := range slices.Sorted(maps.Keys(we.Changes)) {
		add(uri, we.Changes[uri])
	}
	return out, nil
}

// applyTextEdits applies LSP text edits, whose positions count in enc, to
// text. The edits must not overlap (LSP forbids it).
func applyTextEdits(text string, edits []textEdit, enc workspace.Encoding) (string, error) {
	type span struct {
		start, end int
		newText    string
	}
	spans := make([]span, 0, len(edits))
	for _, e := range edits {
		start := workspace.Offset(text, workspace.Position{Line: e.Range.Start.Line, Character: e.Range.Start.Character}, enc)
		end := workspace.Offset(text, workspace.Position{Line: e.Range.End.Line, Character: e.Range.End.Character}, enc)
		if end < start {
			return "", fmt.Errorf("an edit ends before it starts (line %d)", e.Range.Start.Line+1)
		}
		spans = append(spans, span{start, end, e.NewText})
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.start < at {
			return "", errors.New("the language server's edits overlap")
		}
		b.WriteString(text[at:s.start])
		b.WriteString(s.newText)
		at = s.end
	}
	b.WriteString(text[at:])
	return b.String(), nil
}
