package lsp

import (
	"encoding/json"
	"testing"
)

// mayHoldID is false only for messages the decoder finds no id in, so
// that screening them without decoding answers the same.
func TestMayHoldID(t *testing.T) {
	for _, m := range []string{
		`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"say \"id\" and \"ID\": \\u00e9"}}}`,
		`{"jsonrpc":"2.0","method":"initialized","params":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"shutdown"}`,
		`{"jsonrpc":"2.0","ID":null,"method":"exit"}`,
		`{"jsonrpc":"2.0","iD":7,"method":"textDocument/didClose"}`,
		`{"jsonrpc":"2.0","\u0069d":7,"method":"textDocument/didClose"}`,
		`{"jsonrpc":"2.0","i\u0044":7,"method":"textDocument/didClose"}`,
		`{"jsonrpc":"2.0","params":{"id":3},"method":"x"}`,
		`{"id"`,
		`"`,
	} {
		var peek struct {
			ID json.RawMessage `json:"id"`
		}
		decoded := json.Unmarshal([]byte(m), &peek) == nil && peek.ID != nil
		if decoded && !mayHoldID([]byte(m)) {
			t.Errorf("%s: the decoder finds an id, mayHoldID says there is none", m)
		}
	}
	if mayHoldID([]byte(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"text":"say \"id\" \\u00e9"}}}`)) {
		t.Error("an id inside a string is taken for a member")
	}
}
