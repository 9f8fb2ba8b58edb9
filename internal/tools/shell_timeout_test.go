package tools

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/sandbox"
)

func TestShellTimeoutClamp(t *testing.T) {
	for _, tc := range []struct {
		ms   float64
		want time.Duration
	}{
		{0, DefaultShellTimeout},
		{-5, DefaultShellTimeout},
		{500, 500 * time.Millisecond},
		{3_599_999, 3_599_999 * time.Millisecond},
		{3_600_000, MaxShellTimeout},
		{9.3e15, MaxShellTimeout}, // past what a Duration holds in nanoseconds
		{1e19, MaxShellTimeout},
		{1e300, MaxShellTimeout},
		{math.MaxFloat64, MaxShellTimeout},
	} {
		if got := shellTimeout(tc.ms); got != tc.want {
			t.Errorf("timeout_ms %g: %v, want %v", tc.ms, got, tc.want)
		}
	}
}

// TestShellHugeTimeout runs a command with timeout_ms values that once
// overflowed into an immediate "deadline exceeded".
func TestShellHugeTimeout(t *testing.T) {
	for _, ms := range []float64{1e19, 1e300, 9.3e15} {
		env, _ := shellEnv(t, allowDirect(), sandbox.DangerFullAccess)
		out, err := runShell(t, context.Background(), env, map[string]any{
			"command":    []string{"sh", "-c", "echo finished"},
			"timeout_ms": ms,
		})
		if err != nil {
			t.Fatalf("timeout_ms %g: %v", ms, err)
		}
		if out.Failed || !strings.HasPrefix(out.Text, "Exit code: 0\n") || !strings.Contains(out.Text, "finished") {
			t.Errorf("timeout_ms %g: %q", ms, out.Text)
		}
	}
}
