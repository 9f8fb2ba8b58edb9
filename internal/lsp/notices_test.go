package lsp

import (
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// What agent-ls did at start (a change set a crash interrupted, finished)
// is shown once the editor has initialized, once.
func TestNoticesShownAfterInitialized(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *editor.Config) { o.Notices = []string{"a change set was completed"} })
	h.initialize(editor.Options{})
	if _, err := h.ed.WaitMessage(h.ctx, func(protocol.ShowMessageParams) bool { return true }); err != nil {
		t.Fatalf("no notice shown: %v", err)
	}
	if msgs := h.ed.Messages(); len(msgs) != 1 || msgs[0].Message != "a change set was completed" {
		t.Errorf("messages %+v", msgs)
	}
}
