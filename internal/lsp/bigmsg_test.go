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
	for i := range 5000 {
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
		t.Errorf("code actions of %d bytes for 50 MB of diagnostics", len(raw))
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
