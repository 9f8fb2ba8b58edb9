package session

import (
	"os"
	"testing"

	"github.com/agent-ls/agent-ls/internal/testenv"
)

// TestMain runs the commands of the tests' turns with a private HOME and
// state.
func TestMain(m *testing.M) { os.Exit(testenv.RunWithPrivateState(m)) }
