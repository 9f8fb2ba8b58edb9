package lsp

import (
	"bytes"
	"fmt"
	"os"
	"strings"
)

// userDeclined tells whether the editor's refusal of an applyEdit is the
// user's decision, such as eglot's "User cancelled server edit" when
// the user answers no to its confirmation.
func userDeclined(reason string) bool {
	r := strings.ToLower(reason)
	for _, w := range []string{"cancelled", "canceled", "declined", "user rejected", "rejected by the user", "rejected by user"} {
		if strings.Contains(r, w) {
			return true
		}
	}
	return false
}

// unconfirmedStates says, for each document the editor did not report
// the new text of, what agent-ls's view of it and the file on disk hold.
func (s *server) unconfirmedStates(pending []*openEdit) []string {
	var states []string
	for _, oe := range pending {
		view := "agent-ls's view of it holds other text"
		if d, ok := s.store.Document(oe.path); !ok {
			view = "the editor closed it"
		} else if d.Text == oe.old {
			view = "agent-ls's view of it still holds the old text"
		}
		disk := "the file on disk holds other text"
		switch b, err := os.ReadFile(oe.path); {
		case err != nil:
			disk = "the file on disk cannot be read"
		case bytes.Equal(b, []byte(oe.new)):
			disk = "the file on disk holds the new text"
		case bytes.Equal(b, []byte(oe.old)):
			disk = "the file on disk still holds the old text (what commands see)"
		}
		states = append(states, fmt.Sprintf("%s: the editor may show the change, but %s and %s", oe.path, view, disk))
	}
	return states
}
