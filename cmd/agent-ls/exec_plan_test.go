package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// exec --plan runs the turn in plan mode: the patch is refused, the
// command fails in the read-only sandbox, nothing is written, the plan is
// printed (its checklist on stderr, the plan on stdout); exec --resume
// without --plan then carries it out in the default mode.
func TestExecPlan(t *testing.T) {
	m := fakemodel.New(planModeSteps...)
	defer m.Close()
	var stdout, stderr bytes.Buffer
	cmd := execCmd(t, m, "--plan", "create done.txt")
	dir := cmd.Dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if stdout.String() != "Plan: create done.txt.\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	for _, want := range []string{"[ ] create done.txt", "plan mode is on", "carries out the plan"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	for _, f := range []string{"patched.txt", "planned.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after exec --plan: %v, want it absent", f, err)
		}
	}
	if body := string(m.Requests()[1].Body); !strings.Contains(body, "cannot touch") {
		t.Errorf("the command did not fail in the read-only sandbox:\n%.3000s", body)
	}
	id := regexp.MustCompile(`agent-ls: session (\S+) `).FindStringSubmatch(stderr.String())
	if id == nil {
		t.Fatalf("no session id in stderr:\n%s", stderr.String())
	}

	m2 := fakemodel.New(carryOutSteps...)
	defer m2.Close()
	stdout.Reset()
	stderr.Reset()
	cmd = execCmd(t, m2, "--resume", id[1], "Go ahead.")
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "done.txt")); err != nil {
		t.Errorf("exec --resume did not carry the plan out: %v\n%s", err, stderr.String())
	}
	if strings.Contains(string(m2.Requests()[0].Body), "# Plan mode") {
		t.Error("exec without --plan ran in plan mode")
	}
}
