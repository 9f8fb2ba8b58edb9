package main

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// checkDemoNarration compares what the demo printed with the tool results
// it printed: each claim about a test run needs that run's output and
// status, and the sandbox must not have blocked anything.
func checkDemoNarration(out string) error {
	var errs []error
	if strings.Contains(out, "The sandbox blocked this command") {
		errs = append(errs, errors.New("the sandbox blocked the demo's command"))
	}
	runs := strings.Split(out, "── tool: Run go test ./...")
	if len(runs) != 3 {
		return fmt.Errorf("want two go test runs, found %d", len(runs)-1)
	}
	claims := []struct {
		claim, run string
		evidence   []string
	}{
		{"`go test` confirms it: the round trip fails", runs[1], []string{"│ --- FAIL: TestRoundTrip", "→ failed: Exit code: 1"}},
		{"`go test` passes.", runs[2], []string{"│ ok  \texample.com/temperature", "→ completed: Exit code: 0"}},
	}
	for _, c := range claims {
		if !strings.Contains(out, c.claim) {
			errs = append(errs, fmt.Errorf("the demo does not say %q", c.claim))
		}
		result := c.run[:max(strings.Index(c.run, "── answer"), 0)]
		for _, e := range c.evidence {
			if !strings.Contains(result, e) {
				errs = append(errs, fmt.Errorf("the demo says %q, but the run's result lacks %q", c.claim, e))
			}
		}
	}
	return errors.Join(errs...)
}

func TestCheckDemoNarration(t *testing.T) {
	good := "── tool: Run go test ./...\n   │ --- FAIL: TestRoundTrip (0.00s)\n   → failed: Exit code: 1 …\n── answer\n`go test` confirms it: the round trip fails.\n" +
		"── tool: Run go test ./...\n   │ ok  \texample.com/temperature\t0.01s\n   → completed: Exit code: 0 …\n── answer\n`go test` passes.\n"
	if err := checkDemoNarration(good); err != nil {
		t.Errorf("a consistent transcript was refused: %v", err)
	}
	lying := strings.Replace(good, "   │ ok  \texample.com/temperature\t0.01s\n   → completed: Exit code: 0", "   │ FAIL\n   → failed: Exit code: 1", 1)
	if err := checkDemoNarration(lying); err == nil {
		t.Error("a transcript claiming a pass after a failure was accepted")
	}
	blocked := strings.Replace(good, "── answer", "    │ The sandbox blocked this command (...)\n── answer", 1)
	if err := checkDemoNarration(blocked); err == nil {
		t.Error("a transcript where the sandbox blocked go test was accepted")
	}
}
