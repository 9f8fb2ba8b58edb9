package agent

import (
	"os"
	"testing"
)

// TestMain keeps the change-set journals of these tests out of $HOME.
func TestMain(m *testing.M) {
	state, err := os.MkdirTemp("", "agent-ls-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}
