package tools

import (
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestTerminalReadOnly: a command session started in the read-only
// sandbox (plan mode's) is read-only; one started in the workspace-write
// sandbox, or outside the sandbox, is not, and neither is an id no
// session has.
func TestTerminalReadOnly(t *testing.T) {
	env, _ := terminalEnv(t)
	start := func() {
		t.Helper()
		out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "cat", "yield_time_ms": 250})
		if !strings.Contains(out.Text, "Process running with session ID") {
			t.Fatalf("start: %q", out.Text)
		}
	}
	start() // 1000: workspace-write
	env.Boundary = testBoundary(t, policy.ReadOnly, env.Cwd)
	start() // 1001: read-only
	env.Approver = &fakeApprover{allow: true, sandbox: false}
	start() // 1002: outside the sandbox
	for id, want := range map[int]bool{1000: false, 1001: true, 1002: false, 1003: false} {
		if got := env.Terminals.ReadOnly(id); got != want {
			t.Errorf("ReadOnly(%d) = %v, want %v", id, got, want)
		}
	}
}
