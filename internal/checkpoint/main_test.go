package checkpoint

import (
	"os"
	"testing"

	"github.com/agent-ls/agent-ls/internal/testenv"
)

// TestMain runs the tests' commands with a private HOME and state.
func TestMain(m *testing.M) { os.Exit(testenv.RunWithPrivateState(m)) }
