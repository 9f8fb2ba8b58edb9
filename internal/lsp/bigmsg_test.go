package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// A code action carrying a flood of diagnostics answers with a bounded
// prompt and echoes a bounded list, still naming the first ones.
func TestCodeActionBoundsDiagnostics(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	var diags []any
	for i := range 600 {
		diags = append(diags, map[string]any{
			"range":   map[string]any{"start": map[string]int{"line": i, "character": 0}, "end": map[string]int{"line": i, "character": 1}},
			"message": strings.Repeat("m", 10000),
		})
	}
	actions := codeActions(t, h, map[string]any{
		"textDocument": map[string]string{"uri": string(uri.File("/ws/main.go"))},
		"range":        map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 9, "character": 0}},
		"context":      map[string]any{"diagnostics": diags},
	})
	raw, _ := json.Marshal(actions)
	if len(raw) > 2*maxDiagnostics*maxDiagnostic+64<<10 {
		t.Errorf("code actions of %d bytes for 6 MB of diagnostics", len(raw))
	}
	var fix map[string]any
	for _, a := range actions {
		if a["title"] == "Agent: Fix this" {
			fix = a
		}
	}
	if fix == nil || fix["kind"] != "quickfix" || len(fix["diagnostics"].([]any)) != maxDiagnostics {
		t.Fatalf("fix action %v", fix != nil)
	}
	if !strings.Contains(string(raw), "mmmm") {
		t.Error("the diagnostics' text is missing from the prompt")
	}
}

// A document in a frame larger than bigFrame arrives whole, escapes and
// all, and later changes apply to it.
func TestLargeDidOpen(t *testing.T) {
	h := newApplyHarness(t, editor.Options{})
	text := strings.Repeat("line \"é\" \\ \t😀 </x>\n", (bigFrame/20)+1000)
	h.write("big.txt", "")
	if err := h.ed.Open(h.ctx, h.uri("big.txt"), "text", text); err != nil {
		t.Fatal(err)
	}
	d := h.waitStore("big.txt", text)
	if d.Version != 1 || d.LanguageID != "text" || d.URI != h.uri("big.txt") {
		t.Errorf("document %q v%d %s", d.URI, d.Version, d.LanguageID)
	}
	if err := h.ed.Change(h.ctx, h.uri("big.txt"), editor.Change{Text: "small\n"}); err != nil {
		t.Fatal(err)
	}
	h.waitStore("big.txt", "small\n")
}
