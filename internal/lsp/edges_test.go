package lsp

import (
	"strings"
	"testing"
)

// readNotification returns the next message, which must be a
// notification of method.
func (c *rawClient) notification(method string) map[string]any {
	c.t.Helper()
	msg, ok := c.read().(map[string]any)
	if !ok || msg["method"] != method {
		c.t.Fatalf("got %v, want a %s notification", msg, method)
	}
	return msg["params"].(map[string]any)
}

// TestDidChangeEdgesKeepTheDocument sends changes an editor must not send
// and checks that the document keeps its text, and that the client is
// told.
func TestDidChangeEdgesKeepTheDocument(t *testing.T) {
	c := newRawClient(t)
	c.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{}}}`)
	c.expectResult(1)
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	a := <-c.agent
	dir := t.TempDir()
	uri := "file://" + dir + "/a.txt"
	text := func() string {
		t.Helper()
		b, err := a.cfg.Files.ReadFile(dir + "/a.txt")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"text","version":5,"text":"hello\nworld\n"}}}`)
	for _, bad := range []string{
		`{"start":{"line":-1,"character":0},"end":{"line":0,"character":2}}`,
		`{"start":{"line":0,"character":0},"end":{"line":0,"character":-3}}`,
		`{"start":{"line":0.5,"character":0},"end":{"line":1,"character":0}}`,
		`{"start":{"line":0},"end":{"line":1,"character":0}}`,
	} {
		c.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":6},"contentChanges":[{"range":` + bad + `,"text":"X"}]}}`)
		p := c.notification("window/logMessage")
		if msg, _ := p["message"].(string); !strings.Contains(msg, "not a range of non-negative integer positions") || p["type"].(float64) != 1 {
			t.Errorf("range %s: log %v", bad, p)
		}
		if got := text(); got != "hello\nworld\n" {
			t.Fatalf("range %s: document is now %q", bad, got)
		}
	}
	// An older version never rolls the document back.
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":7},"contentChanges":[{"text":"newer\n"}]}}`)
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":6},"contentChanges":[{"text":"older\n"}]}}`)
	if p := c.notification("window/logMessage"); !strings.Contains(p["message"].(string), "version 6 after 7") {
		t.Errorf("log %v", p)
	}
	if got := text(); got != "newer\n" {
		t.Errorf("document is %q after an older change, want the newer text", got)
	}
	// A valid change still applies.
	c.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":8},"contentChanges":[{"range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}},"text":"N"}]}}`)
	c.ping(2)
	if got := text(); got != "Newer\n" {
		t.Errorf("document is %q, want %q", got, "Newer\n")
	}
}
