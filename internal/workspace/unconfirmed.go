package workspace

import "strings"

// UnconfirmedError says the editor answered that it applied a change but
// never reported the new text of some documents: what each of those
// files holds now, in the editor, in agent-ls's view and on disk, is
// stated, because it is not known to be the change.
type UnconfirmedError struct {
	// States says, per path, what is known of it.
	States []string
}

func (e *UnconfirmedError) Error() string {
	return "the editor said it applied the change but did not report the new text of every file, so it is not confirmed:\n- " +
		strings.Join(e.States, "\n- ")
}
