package sandbox

import (
	"os"
	"regexp"
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

// TestProbeRunsItsStepsAndSaysWhichFailed: the probe takes the helper's
// steps in a child of its own. Outside the sandbox they work wherever
// Probe says namespaces work; inside it (a command trying to make a user
// namespace of its own and mapping its ids) they are refused, and the
// answer names the step and the errno instead of a bare failure. Probing leaves this process as
// it was: its namespaces and, run many times, its count of children.
func TestProbeRunsItsStepsAndSaysWhichFailed(t *testing.T) {
	requireLandlock(t)
	t.Setenv(NoNamespaceEnv, "")
	if !Probe().Namespaces {
		t.Skip("no namespaces here: " + Probe().NamespaceNote)
	}
	own, err := os.Readlink("/proc/self/ns/user")
	if err != nil {
		t.Skip(err)
	}
	for range 50 {
		if _, err := probeNamespaces(); err != nil {
			t.Fatalf("probe outside the sandbox: %v", err)
		}
	}
	if now, _ := os.Readlink("/proc/self/ns/user"); now != own {
		t.Fatalf("the probe moved this process from user namespace %s to %s", own, now)
	}
	if u := unconfined(t, "namespaces"); u.code != 0 {
		t.Fatalf("the probe fails unconfined: %v", u)
	}
	r := attack(t, Policy{Mode: WorkspaceWrite, Cwd: t.TempDir()}, "namespaces")
	mustBlock(t, r, "a user namespace from inside the sandbox")
	// Which step fails depends on the sandbox's rules (today: the map
	// files, under a read-only /proc); that one is named does not.
	step := regexp.MustCompile(`refused an unprivileged user\+mount namespace: (unshare\(CLONE_NEWUSER\|CLONE_NEWNS\)|writing /proc/self/(setgroups|uid_map|gid_map)|making mounts private): [a-z]`)
	if !step.MatchString(r.stdout) {
		t.Errorf("the refusal does not name its step and errno: %q", r.stdout)
	}
}
