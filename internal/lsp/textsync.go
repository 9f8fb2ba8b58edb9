package lsp

import (
	"context"
	"encoding/json"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/jsonstr"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// textSync applies the document notifications to the store inline on the
// read loop, in the order the editor sent them: the handler chain runs
// messages concurrently, which would reorder a burst of incremental
// changes. It only touches the store, so it never blocks the loop for long.
type textSync struct{ s *server }

// handled is the non-nil result that tells jsonrpc2 a preempted
// notification needs no handler.
var handled = struct{}{}

func (t textSync) Preempt(_ context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case protocol.MethodTextDocumentDidOpen, protocol.MethodTextDocumentDidChange,
		protocol.MethodTextDocumentDidClose, protocol.MethodTextDocumentDidSave,
		protocol.MethodWorkspaceDidChangeConfiguration, protocol.MethodWorkspaceDidChangeWorkspaceFolders:
	default:
		return nil, jsonrpc2.ErrNotHandled
	}
	if req.IsCall() {
		return nil, jsonrpc2.ErrNotHandled // not a notification: let the handlers answer it
	}
	if t.s.state.Load() != stateInitialized {
		t.s.texts.reset() // a text cut out of the frame is let go at once
		return handled, nil
	}
	if req.Method() == protocol.MethodWorkspaceDidChangeWorkspaceFolders {
		// In order too: a turn started after the change sees the folders.
		t.s.didChangeWorkspaceFolders(json.RawMessage(req.Params()))
		return handled, nil
	}
	if req.Method() == protocol.MethodWorkspaceDidChangeConfiguration {
		// In order, like the text: a turn the editor starts after
		// changing a setting runs with it.
		t.s.didChangeConfiguration(json.RawMessage(req.Params()))
		return handled, nil
	}
	if err := t.s.syncDocument(req.Method(), req.Params()); err != nil {
		t.s.notifyError(req.Method(), err)
	}
	return handled, nil
}

func (s *server) syncDocument(method string, params []byte) error {
	switch method {
	case protocol.MethodTextDocumentDidOpen:
		var p openParams
		if err := json.Unmarshal(params, &p); err != nil {
			return err
		}
		item := p.TextDocument
		text := string(item.Text)
		if cut, ok := s.texts.takeOpen(); ok {
			text = cut
		}
		s.store.Open(workspace.Doc{
			Path:       docKey(item.URI),
			URI:        item.URI,
			LanguageID: item.LanguageID,
			Version:    item.Version,
			Text:       text,
		})

	case protocol.MethodTextDocumentDidChange:
		if err := checkContentChanges(params); err != nil {
			return err
		}
		var p changeParams
		if err := json.Unmarshal(params, &p); err != nil {
			return err
		}
		s.texts.takeChanges(len(p.ContentChanges), func(i int, text string) { p.ContentChanges[i].Text = jsonstr.Text(text) })
		changes := make([]workspace.Change, 0, len(p.ContentChanges))
		for _, c := range p.ContentChanges {
			var r *workspace.Range
			if c.Range != nil {
				wr := fromProtocolRange(*c.Range)
				r = &wr
			}
			changes = append(changes, workspace.Change{Range: r, Text: string(c.Text)})
		}
		key := docKey(p.TextDocument.URI)
		before, _ := s.store.Document(key)
		err := s.store.Change(key, p.TextDocument.Version, changes)
		if after, _ := s.store.Document(key); len(before.Text) > bigFrame && len(after.Text) < len(before.Text)/2 {
			releaseLater() // a large text let go, as at didClose
		}
		return err

	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return err
		}
		// A large text, or many closed (an editor closing its
		// session's documents), let go: see bigmsg.go.
		if s.closedText.Add(int64(s.store.Close(docKey(string(p.TextDocument.URI))))) > bigFrame {
			s.closedText.Store(0)
			releaseLater()
		}

	case protocol.MethodTextDocumentDidSave:
		var p protocol.DidSaveTextDocumentParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return err
		}
		s.store.Save(docKey(string(p.TextDocument.URI)))
	}
	return nil
}

// openParams and changeParams are what the store takes of didOpen and
// didChange, decoded with encoding/json and the text with jsonstr.Text: one
// copy of a document's text, where go.lsp.dev/protocol's decoder grows its
// buffer byte by byte for any text with an escape (a line break),
// allocating many times the text's size.
type openParams struct {
	TextDocument struct {
		URI        string       `json:"uri"`
		LanguageID string       `json:"languageId"`
		Version    int32        `json:"version"`
		Text       jsonstr.Text `json:"text"`
	} `json:"textDocument"`
}

type changeParams struct {
	TextDocument struct {
		URI     string `json:"uri"`
		Version int32  `json:"version"`
	} `json:"textDocument"`
	ContentChanges []struct {
		Range *protocol.Range `json:"range"`
		Text  jsonstr.Text    `json:"text"`
	} `json:"contentChanges"`
}

// docKey is the store key of a document: its path for file URIs, else the
// URI (an unsaved buffer).
func docKey(u string) string {
	if path, ok := filePath(u); ok {
		return path
	}
	return u
}

func fromProtocolRange(r protocol.Range) workspace.Range {
	return workspace.Range{
		Start: workspace.Position{Line: int(r.Start.Line), Character: int(r.Start.Character)},
		End:   workspace.Position{Line: int(r.End.Line), Character: int(r.End.Character)},
	}
}
