//go:build cgo

package sandbox

import (
	"syscall"
	"testing"
)

// The early probe (started by the constructor of the agent's commands)
// finds what the probe from Go finds.
func TestEarlyProbeAgreesWithTheGoProbe(t *testing.T) {
	startEarlyProbe()
	ns, pidns, note, ok := earlyNamespaces()
	if !ok {
		t.Fatal("the early probe gave no answer")
	}
	wantNS := probeNamespaces(0) == nil
	wantPID := probeNamespaces(syscall.CLONE_NEWPID) == nil
	if ns != wantNS || pidns != (wantNS && wantPID) {
		t.Errorf("early probe: namespaces %v, PID namespace %v (%q); from Go: %v, %v", ns, pidns, note, wantNS, wantPID)
	}
	if !ns && note == "" {
		t.Error("no namespaces and no note saying why")
	}
	t.Logf("namespaces %v, PID namespace %v %s", ns, pidns, note)
	// Read once: a second call has nothing left to read and says so.
	if _, _, _, ok := earlyNamespaces(); ok {
		t.Error("the early probe was read twice")
	}
}

func TestEarlyProbeStartsForTheAgentsCommands(t *testing.T) {
	for _, c := range []struct {
		args []string
		want bool
	}{
		{nil, true},
		{[]string{"serve", "--stdio"}, true},
		{[]string{"acp"}, true},
		{[]string{"exec", "hi"}, true},
		{[]string{"--stdio"}, true},
		{[]string{"--log-level", "debug"}, true},
		{[]string{"sandbox", "--in-namespace", "--plan", "--", "true"}, false},
		{[]string{"demo"}, false},
		{[]string{"version"}, false},
		{[]string{"--version"}, false},
		{[]string{"-h"}, false},
		{[]string{"--help"}, false},
		{[]string{"-test.v"}, false},
		{[]string{""}, false},
	} {
		if got := runsAgent(c.args); got != c.want {
			t.Errorf("%q: %v, want %v", c.args, got, c.want)
		}
	}
}
