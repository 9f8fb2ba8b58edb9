// Package testenv is set-up that several packages' tests share. Only test
// files import it.
package testenv

import (
	"fmt"
	"os"
	"testing"
)

// RunWithPrivateState runs m with $XDG_STATE_HOME set to a fresh
// temporary directory, so the change-set journals and transcripts the
// tests write stay out of the user's home, and returns m's exit code.
func RunWithPrivateState(m *testing.M) int {
	state, err := os.MkdirTemp("", "agent-ls-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(state)
	os.Setenv("XDG_STATE_HOME", state)
	return m.Run()
}
