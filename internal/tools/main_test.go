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
	os.Exit(m.Run())
}
