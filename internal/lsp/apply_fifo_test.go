//go:build unix

package lsp

import (
	"os"
	"syscall"
	"testing"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// TestApplyDirtyBufferOverAFIFO: a dirty buffer whose file became a named
// pipe is edited in the editor without waiting on the pipe, and nothing
// is written to it.
func TestApplyDirtyBufferOverAFIFO(t *testing.T) {
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true})
	h.open("a.go", "saved\n")
	h.type_("a.go", "unsaved\n")
	if err := os.Remove(h.path("a.go")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(h.path("a.go"), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	if err := h.apply(h.ctx, update("a.go", "unsaved\n", "unsaved\nand the agent\n")); err != nil {
		t.Fatal(err)
	}
	if got := h.editorText("a.go"); got != "unsaved\nand the agent\n" {
		t.Errorf("editor a.go %q", got)
	}
}
