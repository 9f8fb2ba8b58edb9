package agent

import (
	"os"
	"testing"

	"github.com/agent-ls/agent-ls/internal/sandbox"
	"github.com/agent-ls/agent-ls/internal/testenv"
)

// TestMain lets the test binary serve as the sandbox helper, as the
// agent-ls binary does (`<test binary> sandbox ARGS...`), for the tests
// whose commands really run, and keeps the change-set journals of these
// tests out of $HOME.
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == "sandbox" {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	if dir := os.Getenv(rewindHelperEnv); dir != "" {
		// The parent's private state (its journals) is this helper's.
		os.Exit(rewindHelper(dir))
	}
	os.Exit(testenv.RunWithPrivateState(m))
}

// rewindHelperEnv names the workspace of the helper process that runs a
// turn there, says "ready", and rewinds it when its stdin says so.
const rewindHelperEnv = "AGENT_LS_TEST_REWIND_HELPER"
