package lsp

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Edges of JSON-RPC 2.0 and LSP that jsonrpc2 does not answer as the
// specifications say; the stream screens each frame for them before the
// connection sees it.

// notificationMethods are the client-to-server methods LSP defines as
// notifications. One sent with an id is a request no handler may answer
// (nor act on: `exit` with an id must not stop the server).
var notificationMethods = map[string]bool{
	protocol.MethodInitialized:                        true,
	protocol.MethodExit:                               true,
	"$/cancelRequest":                                 true,
	"$/setTrace":                                      true,
	"$/progress":                                      true,
	protocol.MethodTextDocumentDidOpen:                true,
	protocol.MethodTextDocumentDidChange:              true,
	protocol.MethodTextDocumentDidClose:               true,
	protocol.MethodTextDocumentDidSave:                true,
	protocol.MethodTextDocumentWillSave:               true,
	protocol.MethodWorkspaceDidChangeConfiguration:    true,
	protocol.MethodWorkspaceDidChangeWorkspaceFolders: true,
	protocol.MethodWorkspaceDidChangeWatchedFiles:     true,
	"workspace/didCreateFiles":                        true,
	"workspace/didRenameFiles":                        true,
	"workspace/didDeleteFiles":                        true,
	"window/workDoneProgress/cancel":                  true,
	"notebookDocument/didOpen":                        true,
	"notebookDocument/didChange":                      true,
	"notebookDocument/didSave":                        true,
	"notebookDocument/didClose":                       true,
}

// screen answers what in body the connection would get wrong and returns
// what it should still handle (nil: nothing). In a batch (JSON-RPC 2.0
// section 6) a member that is not an object, or has a null id, is
// replaced by {}, which the connection answers, in the batch's one
// response array, with Invalid Request and a null id (it would answer a
// non-object with Parse error although the batch parsed). A notification
// sent with an id is answered here, in an array of its own, and removed.
func screen(body []byte) (reply, pass []byte) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if len(trimmed) == 0 || trimmed[0] != '[' {
		if r, _ := screenMember(body); r != nil {
			return r, nil
		}
		return nil, body
	}
	var members []json.RawMessage
	if json.Unmarshal(body, &members) != nil || len(members) == 0 {
		return nil, body // not JSON, or an empty batch: check answers it
	}
	var replies, kept []json.RawMessage
	changed := false
	for _, m := range members {
		if !bytes.HasPrefix(bytes.TrimLeft(m, " \t\r\n"), []byte("{")) {
			kept, changed = append(kept, json.RawMessage("{}")), true
			continue
		}
		r, nullID := screenMember(m)
		switch {
		case r == nil:
			kept = append(kept, m)
		case nullID:
			kept, changed = append(kept, json.RawMessage("{}")), true
		default:
			replies, changed = append(replies, r), true
		}
	}
	if !changed {
		return nil, body
	}
	if len(replies) > 0 {
		reply, _ = json.Marshal(replies)
	}
	if len(kept) > 0 {
		pass, _ = json.Marshal(kept)
	}
	return reply, pass
}

// screenMember returns the error response for a request the connection
// must not handle, nil for one to pass on, and whether its id is null.
func screenMember(m []byte) (resp []byte, nullID bool) {
	if !mayHoldID(m) {
		// No id: nothing to answer. A notification (didOpen's whole
		// text) is thus not decoded once more only to find that out.
		return nil, false
	}
	var peek struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(m, &peek) != nil || peek.Method == nil || peek.ID == nil {
		return nil, false
	}
	if string(peek.ID) == "null" {
		// JSON-RPC allows a null id but LSP does not (integer or string);
		// answered, never treated as a notification.
		return errorResponse(nil, jsonrpc2.InvalidRequest,
			fmt.Sprintf("invalid request %s: the id must be an integer or a string, not null", *peek.Method)), true
	}
	if notificationMethods[*peek.Method] {
		return errorResponse(peek.ID, jsonrpc2.InvalidRequest,
			fmt.Sprintf("%s is a notification: send it without an id", *peek.Method)), false
	}
	return nil, false
}

// Escapes that spell an i or a d (JSON has only lower-case \u).
var idEscapes = [][]byte{[]byte(`\u0069`), []byte(`\u0049`), []byte(`\u0064`), []byte(`\u0044`)}

// mayHoldID reports whether m may have a member the JSON decoder reads as
// "id": a key "id" in any case (encoding/json matches keys so), or an
// escape that spells one of its letters. Without either it has none.
func mayHoldID(m []byte) bool {
	for i := bytes.IndexByte(m, '"'); i >= 0 && i+3 < len(m); {
		if m[i+1]|0x20 == 'i' && m[i+2]|0x20 == 'd' && m[i+3] == '"' {
			return true
		}
		j := bytes.IndexByte(m[i+1:], '"')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	for _, e := range idEscapes {
		if bytes.Contains(m, e) {
			return true
		}
	}
	return false
}

// errorResponse is a JSON-RPC error response; a nil id is null.
func errorResponse(id json.RawMessage, code jsonrpc2.Code, message string) []byte {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   struct {
			Code    jsonrpc2.Code `json:"code"`
			Message string        `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id, Error: struct {
		Code    jsonrpc2.Code `json:"code"`
		Message string        `json:"message"`
	}{code, message}})
	return b
}

// checkContentChanges refuses a didChange whose ranges do not decode as
// LSP positions (negative or fractional numbers, missing fields): the
// protocol's union decoder would otherwise read such a change as a
// whole-document replacement and lose the document.
func checkContentChanges(params []byte) error {
	var p struct {
		// Only the ranges: a change's text is not copied here.
		ContentChanges []struct {
			Range json.RawMessage `json:"range"`
		} `json:"contentChanges"`
	}
	if err := json.Unmarshal(params, &p); err != nil {
		return fmt.Errorf("contentChanges: %w", err)
	}
	for i, c := range p.ContentChanges {
		raw := c.Range
		if raw == nil {
			continue // no range: the whole document
		}
		var r struct {
			Start, End *struct {
				Line, Character *uint32
			}
		}
		if err := json.Unmarshal(raw, &r); err != nil || r.Start == nil || r.End == nil ||
			r.Start.Line == nil || r.Start.Character == nil || r.End.Line == nil || r.End.Character == nil {
			return fmt.Errorf("contentChanges[%d].range %s is not a range of non-negative integer positions; the change was not applied", i, textcut.Cut(string(raw), 120))
		}
	}
	return nil
}

// notifyError tells the client about a notification it sent that could
// not be applied: a notification has no response to carry the error.
func (s *server) notifyError(method string, err error) {
	s.log.Warn("document notification ignored", "method", method, "err", err)
	if s.conn == nil {
		return
	}
	msg := textcut.Visible(fmt.Sprintf("agent-ls: %s ignored: %v", method, err))
	go func() {
		_ = protocol.ClientDispatcher(s.conn).LogMessage(context.Background(),
			&protocol.LogMessageParams{Type: protocol.MessageTypeError, Message: msg})
	}()
}
