package tools

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/proctest"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// TestShellDaemonDoesNotHoldTheCall: a sandboxed command that leaves a
// daemon holding its stdout returns with its own status and output, and
// the daemon is gone (internal/sandbox's TestNoSurvivorsAfterExit shows
// that Wait needs no drain bound for it).
func TestShellDaemonDoesNotHoldTheCall(t *testing.T) {
	if sandbox.LandlockABI() == 0 {
		t.Skip("SKIPPING: this kernel has no Landlock, so nothing is sandboxed")
	}
	mk := proctest.Marker()
	for _, noNS := range []bool{false, true} {
		if noNS {
			t.Setenv(sandbox.NoNamespaceEnv, "1")
		}
		env, _ := shellEnv(t, &fakeApprover{allow: true, sandbox: true}, sandbox.WorkspaceWrite)
		out, err := runShell(t, context.Background(), env, map[string]any{
			"command":    []string{"bash", "-c", "setsid bash -c 'exec -a " + mk + " sleep 1000' & echo hi"},
			"timeout_ms": 600000,
		})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out.Text, "Exit code: 0\n") || !strings.Contains(out.Text, "hi") {
			t.Errorf("namespaces off %v: output %q", noNS, out.Text)
		}
		proctest.Gone(t, mk)
	}
}
