package lsp

import (
	"context"
	"errors"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// An editor that answers applied: true but never sends the didChange
// that shows the new text: the change is not reported as done, and the
// state of the file is said exactly.
func TestApplyUnconfirmedIsNotReportedAsDone(t *testing.T) {
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true}, func(_ *Options, c *editor.Config) {
		c.ApplyEdit = func(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
			return &protocol.ApplyWorkspaceEditResult{Applied: true}, nil
		}
	})
	h.open("a.go", "old\n")
	err := h.apply(h.ctx, update("a.go", "old\n", "new\n"))
	var unconfirmed *workspace.UnconfirmedError
	if !errors.As(err, &unconfirmed) {
		t.Fatalf("ApplyChanges = %v, want an UnconfirmedError", err)
	}
	msg := err.Error()
	for _, want := range []string{h.path("a.go"), "agent-ls's view of it still holds the old text", "the file on disk still holds the old text", "not confirmed"} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	if h.disk("a.go") != "old\n" {
		t.Errorf("disk %q", h.disk("a.go"))
	}
}

// eglot asks the user to confirm a server edit and answers an error when
// they say no: that is the user's decision, not a conflict to redo.
func TestApplyDeclinedByTheUser(t *testing.T) {
	h := newApplyHarness(t, editor.Options{ApplyEdit: true, DocumentChanges: true}, func(_ *Options, c *editor.Config) {
		c.ApplyEdit = func(context.Context, *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
			return nil, jsonrpc2.NewError(jsonrpc2.InternalError, "User cancelled server edit")
		}
	})
	h.open("a.go", "old\n")
	h.write("b.go", "b\n")
	err := h.apply(h.ctx, update("a.go", "old\n", "new\n"), update("b.go", "b\n", "B\n"))
	var rej *workspace.RejectedError
	if !errors.As(err, &rej) || !rej.Declined {
		t.Fatalf("ApplyChanges = %v, want a RejectedError declined by the user", err)
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "rejected: the user declined this change in the editor (") || strings.Contains(msg, "redo the change") {
		t.Errorf("message %q", msg)
	}
	if h.disk("b.go") != "b\n" || h.disk("a.go") != "old\n" {
		t.Errorf("disk changed: a %q, b %q", h.disk("a.go"), h.disk("b.go"))
	}
}
