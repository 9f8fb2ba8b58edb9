package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

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
		protocol.MethodWorkspaceDidChangeConfiguration:
	default:
		return nil, jsonrpc2.ErrNotHandled
	}
	if req.IsCall() {
		return nil, jsonrpc2.ErrNotHandled // not a notification: let the handlers answer it
	}
	if t.s.state.Load() != stateInitialized {
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
		var p protocol.DidOpenTextDocumentParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return err
		}
		item := p.TextDocument
		// Short strings decoded from a message may point into its whole
		// body; copies let a large body go (see bigmsg.go).
		docURI := strings.Clone(string(item.URI))
		s.store.Open(workspace.Doc{
			Path:       docKey(docURI),
			URI:        docURI,
			LanguageID: strings.Clone(string(item.LanguageID)),
			Version:    item.Version,
			Text:       item.Text,
		})

	case protocol.MethodTextDocumentDidChange:
		if err := checkContentChanges(params); err != nil {
			return err
		}
		var p protocol.DidChangeTextDocumentParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return err
		}
		changes := make([]workspace.Change, 0, len(p.ContentChanges))
		for _, c := range p.ContentChanges {
			switch c := c.(type) {
			case *protocol.TextDocumentContentChangePartial:
				r := fromProtocolRange(c.Range)
				changes = append(changes, workspace.Change{Range: &r, Text: c.Text})
			case *protocol.TextDocumentContentChangeWholeDocument:
				changes = append(changes, workspace.Change{Text: c.Text})
			default:
				return fmt.Errorf("unknown content change %T", c)
			}
		}
		return s.store.Change(docKey(string(p.TextDocument.URI)), p.TextDocument.Version, changes)

	case protocol.MethodTextDocumentDidClose:
		var p protocol.DidCloseTextDocumentParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return err
		}
		s.store.Close(docKey(string(p.TextDocument.URI)))

	case protocol.MethodTextDocumentDidSave:
		var p protocol.DidSaveTextDocumentParams
		if err := protocol.Unmarshal(params, &p); err != nil {
			return err
		}
		s.store.Save(docKey(string(p.TextDocument.URI)))
	}
	return nil
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
