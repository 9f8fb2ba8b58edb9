package agent

import (
	"os"
	"testing"

	"github.com/agent-ls/agent-ls/internal/testenv"
)

// TestMain keeps the change-set journals of these tests out of $HOME.
func TestMain(m *testing.M) { os.Exit(testenv.RunWithPrivateState(m)) }
