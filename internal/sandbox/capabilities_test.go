package sandbox

import (
	"strings"
	"testing"
)

// TestUnavailable: a machine without a sandbox (another system, no cgo,
// no Landlock) is reported as such, and Summary and Explain say that
// every command then asks; a full one is not.
func TestUnavailable(t *testing.T) {
	p := Policy{Mode: WorkspaceWrite, Cwd: t.TempDir()}
	for _, tc := range []struct {
		name string
		c    Capabilities
		why  string
	}{
		{"another system", Capabilities{Unsupported: "agent-ls has no sandbox on plan9"}, "plan9"},
		{"no cgo", Capabilities{LandlockABI: 4, SeccompNote: "agent-ls was built without cgo"}, "without cgo"},
		{"no landlock", Capabilities{Seccomp: true}, "no Landlock"},
		{"full", Capabilities{LandlockABI: 4, Seccomp: true}, ""},
	} {
		got := tc.c.Unavailable()
		if (got == "") != (tc.why == "") || !strings.Contains(got, tc.why) {
			t.Errorf("%s: Unavailable() = %q, want one with %q", tc.name, got, tc.why)
		}
		summary, explain := tc.c.Summary(), Explain(p, tc.c)
		if tc.why == "" {
			if strings.Contains(summary, "No sandbox") || strings.Contains(explain, "NOT available:") {
				t.Errorf("%s: a full sandbox is described as missing:\n%s\n%s", tc.name, summary, explain)
			}
			continue
		}
		if !strings.HasPrefix(summary, "No sandbox: "+got) || !strings.Contains(summary, "every command needs the user's approval") {
			t.Errorf("%s: Summary() = %q", tc.name, summary)
		}
		if !strings.Contains(explain, "sandbox: NOT available: "+got) || !strings.Contains(explain, "agent-ls asks before every command") {
			t.Errorf("%s: Explain:\n%s", tc.name, explain)
		}
	}
}
