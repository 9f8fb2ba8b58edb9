package workspace

import (
	"strings"
	"testing"
)

// Storage errors state what happened (the path, the cause, that nothing
// was changed) and leave what to do about it to whoever presents them:
// the model's advice is worded by the tools, a person's by the editor.
func TestErrorsStateFacts(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want []string
	}{
		{&RejectedError{Reason: "User cancelled", Declined: true}, []string{"declined", "User cancelled", "nothing was changed"}},
		{&RejectedError{Reason: "stale version"}, []string{"did not apply", "stale version", "nothing was changed"}},
		{&RejectedError{}, []string{"did not apply", "nothing was changed"}},
		{&ChangedError{Path: "/w/a.go", Detail: "it was deleted"}, []string{"/w/a.go", "it was deleted", "nothing was changed"}},
		{&UnconfirmedError{States: []string{"/w/a.go: unknown", "/w/b.go: unknown"}}, []string{"not confirmed", "/w/a.go: unknown", "/w/b.go: unknown"}},
	} {
		msg := tc.err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%T message %q does not say %q", tc.err, msg, w)
			}
		}
		for _, advice := range []string{"redo", "read it", "read the file", "read these", "ask the user", "try"} {
			if strings.Contains(strings.ToLower(msg), advice) {
				t.Errorf("%T message %q gives advice (%q)", tc.err, msg, advice)
			}
		}
	}
}
