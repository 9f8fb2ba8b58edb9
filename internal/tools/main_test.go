package tools

import (
	"os"
	"testing"

	"github.com/agent-ls/agent-ls/internal/sandbox"
	"github.com/agent-ls/agent-ls/internal/testenv"
)

// TestMain lets the test binary serve as the sandbox helper, as the
// agent-ls binary does: `<test binary> sandbox ARGS...`.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox" {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	// Change-set journals stay out of $HOME.
	os.Exit(testenv.RunWithPrivateState(m))
}
