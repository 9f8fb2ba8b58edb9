package sandbox

import (
	"os"
	"strings"
	"testing"
)

// TestProbeAgreesWithTheHelper: what Probe says of namespaces is what a
// command run through the helper gets: a user namespace of its own (and
// a PID namespace) exactly when Probe says so, and a reason when not.
func TestProbeAgreesWithTheHelper(t *testing.T) {
	requireLandlock(t)
	t.Setenv(NoNamespaceEnv, "")
	c := Probe()
	if !c.Namespaces && c.NamespaceNote == "" {
		t.Error("no namespaces and no note saying why")
	}
	if c.PIDNamespace && !c.Namespaces {
		t.Error("a PID namespace without the user and mount namespaces")
	}
	links := []string{"/proc/self/ns/user", "/proc/self/ns/pid"}
	var own []string
	for _, l := range links {
		v, err := os.Readlink(l)
		if err != nil {
			t.Skipf("cannot read %s: %v", l, err)
		}
		own = append(own, v)
	}
	r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: t.TempDir()}, nil, append([]string{"readlink"}, links...)...)
	got := strings.Fields(r.stdout)
	if r.code != 0 || len(got) != len(links) {
		t.Fatalf("readlink %v under the sandbox:\n%v", links, r)
	}
	if inUserNS := got[0] != own[0]; inUserNS != c.Namespaces {
		t.Errorf("Probe: namespaces %v (%s); the command's user namespace %s, agent-ls's %s", c.Namespaces, c.NamespaceNote, got[0], own[0])
	}
	if inPIDNS := got[1] != own[1]; inPIDNS != c.PIDNamespace {
		t.Errorf("Probe: PID namespace %v; the command's %s, agent-ls's %s", c.PIDNamespace, got[1], own[1])
	}
	t.Logf("namespaces %v, PID namespace %v %s", c.Namespaces, c.PIDNamespace, c.NamespaceNote)
}
