package tools

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// The workspace states what happened to a change; the tools add, for the
// model, what to do next, per kind of failure.
func TestChangeFailedAdvice(t *testing.T) {
	for _, tc := range []struct {
		name     string
		err      error
		fact     string
		advice   string
		rejected bool
	}{
		{"declined", &workspace.RejectedError{Reason: "User cancelled", Declined: true},
			"rejected: the user declined this change in the editor (User cancelled); nothing was changed",
			"ask the user what they want instead", true},
		{"refused", &workspace.RejectedError{Reason: "version 3 is older"},
			"the editor did not apply the change (version 3 is older); nothing was changed",
			"read the file again and redo the change", true},
		{"changed on disk", fmt.Errorf("apply: %w", &workspace.ChangedError{Path: "/w/a.go", Detail: "its content differs"}),
			"/w/a.go changed since it was read (its content differs); nothing was changed",
			"read it again and redo the change", true},
		{"unconfirmed", &workspace.UnconfirmedError{States: []string{"/w/a.go: the editor holds the old text"}},
			"not confirmed:\n- /w/a.go: the editor holds the old text",
			"Read these files again before relying on the change", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, ok := changeFailed(tc.err)
			if !ok || !out.Failed || out.Rejected != tc.rejected {
				t.Fatalf("changeFailed = %+v, %v", out, ok)
			}
			if !strings.Contains(out.Text, tc.fact) || !strings.Contains(out.Text, tc.advice) {
				t.Errorf("the model is told %q, want the fact %q and the advice %q", out.Text, tc.fact, tc.advice)
			}
		})
	}
	// A declined change is the user's decision: the model is not told to
	// redo it.
	if out, _ := changeFailed(&workspace.RejectedError{Declined: true}); strings.Contains(out.Text, "redo") {
		t.Errorf("a declined change is to be redone: %q", out.Text)
	}
	if _, ok := changeFailed(errors.New("disk full")); ok {
		t.Error("an error that is not about the change is worded as one")
	}
}
