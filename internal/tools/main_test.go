package tools

import (
	"os"
	"testing"

	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// TestMain lets the test binary serve as the sandbox helper, as the
// agent-ls binary does: `<test binary> sandbox ARGS...`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox" {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	// Change-set journals stay out of $HOME.
	state, err := os.MkdirTemp("", "agent-ls-state-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_STATE_HOME", state)
	code := m.Run()
	os.RemoveAll(state)
	os.Exit(code)
}
