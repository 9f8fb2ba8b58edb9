package tools

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

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
	b := make([]byte, 8)
	rand.Read(b)
	mk := "agent-ls-linger-" + hex.EncodeToString(b)
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
		deadline := time.Now().Add(20 * time.Second)
		for lingering(mk) {
			if time.Now().After(deadline) {
				t.Fatalf("namespaces off %v: the daemon outlived the call", noNS)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// lingering tells whether a live process carries m on its command line.
func lingering(m string) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		stat, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err == nil && strings.Contains(string(cmdline), m) && !strings.Contains(string(stat), ") Z ") {
			return true
		}
	}
	return false
}
