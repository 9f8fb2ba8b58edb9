package app

import (
	"bytes"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// TestTermShowsTerminals: exec shows a command session's output live on
// stderr, escape sequences made visible, and its end.
func TestTermShowsTerminals(t *testing.T) {
	var out, errw bytes.Buffer
	f := newTermFrontend(&out, &errw, false)
	f.Event(event.Event{Payload: event.TerminalOutput{TerminalID: "1000", Data: ">>> \x1b[31m42\n"}})
	f.Event(event.Event{Payload: event.TerminalExited{TerminalID: "1000", ExitCode: 0}})
	want := ">>> \\x1b[31m42\n▸ command session 1000 exited with code 0\n"
	if errw.String() != want || out.Len() != 0 {
		t.Errorf("stderr %q, want %q; stdout %q", errw.String(), want, out.String())
	}
}
