package editor

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// document is a document the editor has open.
type document struct {
	languageID string
	version    int32
	text       string
}

// Change is one change to a document: Text replaces Range, or the whole
// document when Range is nil.
type Change struct {
	Range *protocol.Range
	Text  string
}

// Open opens a document (didOpen, version 1).
func (e *Editor) Open(ctx context.Context, docURI, languageID, text string) error {
	e.docMu.Lock()
	defer e.docMu.Unlock()
	e.docs[docURI] = &document{languageID: languageID, version: 1, text: text}
	return e.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
		TextDocument: protocol.TextDocumentItem{URI: uri.URI(docURI), LanguageID: protocol.LanguageKind(languageID), Version: 1, Text: text},
	})
}

// Change changes an open document (didChange with the next version). The
// editor keeps its own copy of the text up to date.
func (e *Editor) Change(ctx context.Context, docURI string, changes ...Change) error {
	e.docMu.Lock()
	defer e.docMu.Unlock()
	return e.change(ctx, docURI, changes)
}

func (e *Editor) change(ctx context.Context, docURI string, changes []Change) error {
	d, ok := e.docs[docURI]
	if !ok {
		return fmt.Errorf("editor: %s is not open", docURI)
	}
	d.version++
	params := &protocol.DidChangeTextDocumentParams{
		TextDocument: protocol.VersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)},
			Version:                d.version,
		},
	}
	enc := e.encoding()
	for _, c := range changes {
		if c.Range == nil {
			d.text = c.Text
			params.ContentChanges = append(params.ContentChanges, &protocol.TextDocumentContentChangeWholeDocument{Text: c.Text})
			continue
		}
		r := toRange(*c.Range)
		d.text = workspace.Apply(d.text, enc, workspace.Change{Range: &r, Text: c.Text})
		params.ContentChanges = append(params.ContentChanges, &protocol.TextDocumentContentChangePartial{Range: *c.Range, Text: c.Text})
	}
	return e.Notify(ctx, protocol.MethodTextDocumentDidChange, params)
}

// Save tells the server the document was saved (didSave); the editor does
// not write the file.
func (e *Editor) Save(ctx context.Context, docURI string) error {
	return e.Notify(ctx, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)},
	})
}

// Close closes a document (didClose).
func (e *Editor) Close(ctx context.Context, docURI string) error {
	e.docMu.Lock()
	defer e.docMu.Unlock()
	delete(e.docs, docURI)
	return e.Notify(ctx, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)},
	})
}

// Text returns the editor's text of an open document and its version.
func (e *Editor) Text(docURI string) (text string, version int32, ok bool) {
	e.docMu.Lock()
	defer e.docMu.Unlock()
	d, ok := e.docs[docURI]
	if !ok {
		return "", 0, false
	}
	return d.text, d.version, true
}

func (e *Editor) encoding() workspace.Encoding {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.enc
}

// applyWorkspaceEdit applies an edit the way an editor does: documents it
// has open change in memory (the server hears didChange), other files
// change on disk. It stops at the first change that fails.
func (e *Editor) applyWorkspaceEdit(ctx context.Context, we *protocol.WorkspaceEdit) *protocol.ApplyWorkspaceEditResult {
	e.docMu.Lock()
	defer e.docMu.Unlock()
	fail := func(i int, err error) *protocol.ApplyWorkspaceEditResult {
		reason, index := err.Error(), uint32(i)
		return &protocol.ApplyWorkspaceEditResult{FailureReason: &reason, FailedChange: &index}
	}
	if len(we.DocumentChanges) > 0 {
		for i, dc := range we.DocumentChanges {
			var err error
			switch c := dc.(type) {
			case *protocol.TextDocumentEdit:
				var edits []protocol.TextEdit
				for _, el := range c.Edits {
					switch el := el.(type) {
					case *protocol.TextEdit:
						edits = append(edits, *el)
					case *protocol.AnnotatedTextEdit:
						edits = append(edits, el.TextEdit)
					default:
						err = fmt.Errorf("unsupported edit %T", el)
					}
				}
				if err == nil {
					err = e.editDocument(ctx, string(c.TextDocument.URI), c.TextDocument.Version, edits)
				}
			case *protocol.CreateFile:
				err = createFile(c)
			case *protocol.RenameFile:
				err = e.renameFile(ctx, c)
			case *protocol.DeleteFile:
				err = deleteFile(c)
			default:
				err = fmt.Errorf("unsupported document change %T", dc)
			}
			if err != nil {
				return fail(i, err)
			}
		}
		return &protocol.ApplyWorkspaceEditResult{Applied: true}
	}
	for i, u := range slices.Sorted(maps.Keys(we.Changes)) {
		if err := e.editDocument(ctx, string(u), nil, we.Changes[u]); err != nil {
			return fail(i, err)
		}
	}
	return &protocol.ApplyWorkspaceEditResult{Applied: true}
}

// editDocument applies edits (positions in the text before any of them) to
// an open document, checking its version when one is given, or to a file.
func (e *Editor) editDocument(ctx context.Context, docURI string, version *int32, edits []protocol.TextEdit) error {
	enc := e.encoding()
	if d, ok := e.docs[docURI]; ok {
		if version != nil && *version != d.version {
			return fmt.Errorf("%s changed: version %d, the edit is for %d", docURI, d.version, *version)
		}
		if _, err := applyTextEdits(d.text, edits, enc); err != nil {
			return err
		}
		// Send the edits last to first: each leaves the positions of the
		// ones before it valid. Inserts at one position go in reverse so
		// that they end up in the order given.
		order := make([]int, len(edits))
		for i := range order {
			order[i] = i
		}
		starts := make([]int, len(edits))
		for i, ed := range edits {
			starts[i] = workspace.Offset(d.text, toRange(ed.Range).Start, enc)
		}
		slices.SortStableFunc(order, func(a, b int) int {
			return cmp.Or(cmp.Compare(starts[b], starts[a]), cmp.Compare(b, a))
		})
		changes := make([]Change, 0, len(edits))
		for _, i := range order {
			changes = append(changes, Change{Range: &edits[i].Range, Text: edits[i].NewText})
		}
		return e.change(ctx, docURI, changes)
	}
	path, err := filePath(docURI)
	if err != nil {
		return err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	text, err := applyTextEdits(string(b), edits, enc)
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o644)
}

// applyTextEdits applies edits whose positions all refer to text.
func applyTextEdits(text string, edits []protocol.TextEdit, enc workspace.Encoding) (string, error) {
	type span struct {
		start, end int
		newText    string
	}
	spans := make([]span, len(edits))
	for i, ed := range edits {
		r := toRange(ed.Range)
		spans[i] = span{workspace.Offset(text, r.Start, enc), workspace.Offset(text, r.End, enc), ed.NewText}
		if spans[i].end < spans[i].start {
			return "", fmt.Errorf("edit %d: range ends before it starts", i)
		}
	}
	slices.SortStableFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	var out strings.Builder
	last := 0
	for i, s := range spans {
		if s.start < last {
			return "", fmt.Errorf("edit %d overlaps another", i)
		}
		out.WriteString(text[last:s.start])
		out.WriteString(s.newText)
		last = s.end
	}
	out.WriteString(text[last:])
	return out.String(), nil
}

func createFile(c *protocol.CreateFile) error {
	path, err := filePath(string(c.URI))
	if err != nil {
		return err
	}
	if _, err := os.Stat(path); err == nil {
		switch {
		case c.Options != nil && isTrue(c.Options.Overwrite):
		case c.Options != nil && isTrue(c.Options.IgnoreIfExists):
			return nil
		default:
			return fmt.Errorf("create %s: %w", path, fs.ErrExist)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, nil, 0o644)
}

func (e *Editor) renameFile(ctx context.Context, c *protocol.RenameFile) error {
	from, err := filePath(string(c.OldURI))
	if err != nil {
		return err
	}
	to, err := filePath(string(c.NewURI))
	if err != nil {
		return err
	}
	if _, err := os.Stat(to); err == nil {
		switch {
		case c.Options != nil && isTrue(c.Options.Overwrite):
		case c.Options != nil && isTrue(c.Options.IgnoreIfExists):
			return nil
		default:
			return fmt.Errorf("rename to %s: %w", to, fs.ErrExist)
		}
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		return err
	}
	if err := os.Rename(from, to); err != nil {
		return err
	}
	// An open document follows its file, as in an editor.
	if d, ok := e.docs[string(c.OldURI)]; ok {
		delete(e.docs, string(c.OldURI))
		if err := e.Notify(ctx, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: c.OldURI},
		}); err != nil {
			return err
		}
		e.docs[string(c.NewURI)] = &document{languageID: d.languageID, version: 1, text: d.text}
		return e.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
			TextDocument: protocol.TextDocumentItem{URI: c.NewURI, LanguageID: protocol.LanguageKind(d.languageID), Version: 1, Text: d.text},
		})
	}
	return nil
}

func deleteFile(c *protocol.DeleteFile) error {
	path, err := filePath(string(c.URI))
	if err != nil {
		return err
	}
	if c.Options != nil && isTrue(c.Options.Recursive) {
		err = os.RemoveAll(path)
	} else {
		err = os.Remove(path)
	}
	if errors.Is(err, fs.ErrNotExist) && c.Options != nil && isTrue(c.Options.IgnoreIfNotExists) {
		return nil
	}
	return err
}

func filePath(u string) (string, error) {
	parsed, err := uri.Parse(u)
	if err != nil {
		return "", err
	}
	if !parsed.IsFile() {
		return "", fmt.Errorf("%s is not a file URI", u)
	}
	return parsed.FsPath(), nil
}

func toRange(r protocol.Range) workspace.Range {
	return workspace.Range{
		Start: workspace.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
		End:   workspace.Position{Line: int(r.End.Line), Character: int(r.End.Character)},
	}
}

func isTrue(b *bool) bool { return b != nil && *b }
