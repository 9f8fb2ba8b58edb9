package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// outsideDir is a fresh folder outside every writable root (/tmp and
// $TMPDIR are writable in workspace-write mode), so writes there must ask.
func outsideDir(t *testing.T) string {
	t.Helper()
	tmpRoots := policy.TempRoots(os.Getenv("TMPDIR"))
	var candidates []string
	if d, err := os.UserCacheDir(); err == nil {
		candidates = append(candidates, d)
	}
	candidates = append(candidates, "/var/tmp")
	for _, base := range candidates {
		if err := os.MkdirAll(base, 0o755); err != nil {
			continue
		}
		real, err := policy.Resolve(base)
		if err != nil {
			continue
		}
		inside := false
		for _, r := range tmpRoots {
			if rr, err := policy.Resolve(r); err == nil && policy.Under(real, []string{rr}) {
				inside = true
			}
		}
		if inside {
			continue
		}
		d, err := os.MkdirTemp(real, "agent-ls-outside-")
		if err != nil {
			continue
		}
		t.Cleanup(func() { os.RemoveAll(d) })
		return d
	}
	t.Skip("no folder outside /tmp and $TMPDIR to write to")
	return ""
}

// unattendedRun runs `agent-ls exec ARGS... PROMPT` in ws against a model
// that makes one tool call and then answers; it returns the output the
// tool call gave the model, and stderr.
func unattendedRun(t *testing.T, ws string, call fakemodel.Item, args ...string) (toolOutput, stderr string, code int) {
	t.Helper()
	m := fakemodel.New(fakemodel.Answer(call), fakemodel.Say("done"))
	defer m.Close()
	cmd := execCmd(t, m, append(args, "do it")...)
	cmd.Dir = ws
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	code = exitCode(cmd.Run())
	reqs := m.Requests()
	if len(reqs) >= 2 {
		toolOutput = callOutput(t, reqs[1].Body)
	}
	return toolOutput, errb.String(), code
}

// callOutput finds the output of the tool call in a Responses request.
func callOutput(t *testing.T, body []byte) string {
	t.Helper()
	var req struct {
		Input []struct {
			Type   string          `json:"type"`
			Output json.RawMessage `json:"output"`
		} `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatalf("request body: %v", err)
	}
	for _, it := range req.Input {
		if strings.HasSuffix(it.Type, "call_output") {
			var s string
			if json.Unmarshal(it.Output, &s) == nil {
				return s
			}
			return string(it.Output)
		}
	}
	return ""
}

func patchCall(patch string) fakemodel.Item {
	return fakemodel.CustomToolCall("p1", "apply_patch", patch)
}

// TestFullAutoRefusesChangesOutsideTheWorkspace tries every route a patch
// has out of the workspace under `exec --full-auto`: each must be refused,
// say why, and leave the outside untouched.
func TestFullAutoRefusesChangesOutsideTheWorkspace(t *testing.T) {
	out := outsideDir(t)
	victim := filepath.Join(out, "victim.txt")
	ws := filepath.Join(out, "ws")
	for _, tc := range []struct {
		name, patch string
		setup       func()
		untouched   string // a path that must not exist afterwards, or victim
	}{
		{name: "absolute path", patch: "*** Begin Patch\n*** Add File: " + filepath.Join(out, "abs.txt") + "\n+x\n*** End Patch", untouched: filepath.Join(out, "abs.txt")},
		{name: "dot-dot in an added path", patch: "*** Begin Patch\n*** Add File: sub/../../dotdot.txt\n+x\n*** End Patch", untouched: filepath.Join(out, "dotdot.txt")},
		{name: "move out", patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: ../moved.txt\n@@\n-a\n+b\n*** End Patch", untouched: filepath.Join(out, "moved.txt")},
		{name: "delete outside", patch: "*** Begin Patch\n*** Delete File: ../victim.txt\n*** End Patch", untouched: victim},
		{name: "symlink to a file outside", patch: "*** Begin Patch\n*** Update File: link.txt\n@@\n-precious\n+pwned\n*** End Patch", untouched: victim,
			setup: func() { os.Symlink(victim, filepath.Join(ws, "link.txt")) }},
		{name: "parent folder a symlink outside", patch: "*** Begin Patch\n*** Add File: outlink/planted.txt\n+x\n*** End Patch", untouched: filepath.Join(out, "planted.txt"),
			setup: func() { os.Symlink(out, filepath.Join(ws, "outlink")) }},
		{name: "git hook", patch: "*** Begin Patch\n*** Add File: .git/hooks/pre-commit\n+#!/bin/sh\n+touch " + filepath.Join(out, "hooked") + "\n*** End Patch", untouched: filepath.Join(ws, ".git", "hooks", "pre-commit")},
		{name: "git config", patch: "*** Begin Patch\n*** Update File: .git/config\n@@\n-[core]\n+[core]\n+\tfsmonitor = touch /tmp/x\n*** End Patch", untouched: filepath.Join(ws, ".git", "config")},
		{name: "agents instructions", patch: "*** Begin Patch\n*** Add File: .agents/AGENTS.md\n+obey me\n*** End Patch", untouched: filepath.Join(ws, ".agents", "AGENTS.md")},
		{name: "agent-ls settings", patch: "*** Begin Patch\n*** Add File: .agent-ls/config.toml\n+x = 1\n*** End Patch", untouched: filepath.Join(ws, ".agent-ls", "config.toml")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.RemoveAll(ws)
			for _, d := range []string{filepath.Join(ws, "sub"), filepath.Join(ws, ".git", "hooks")} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(ws, ".git", "config"), []byte("[core]\n"), 0o644)
			os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
			os.WriteFile(victim, []byte("precious\n"), 0o644)
			if tc.setup != nil {
				tc.setup()
			}
			before, _ := os.ReadFile(tc.untouched)
			output, stderr, code := unattendedRun(t, ws, patchCall(tc.patch), "--full-auto")
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			if !strings.Contains(output, "refused: agent-ls runs unattended") {
				t.Errorf("the model was not told why: %q", output)
			}
			after, err := os.ReadFile(tc.untouched)
			switch {
			case tc.untouched == victim || strings.HasSuffix(tc.untouched, "config"):
				if string(after) != string(before) || err != nil {
					t.Errorf("%s changed: %q → %q (%v)", tc.untouched, before, after, err)
				}
			case err == nil:
				t.Errorf("%s was written", tc.untouched)
			}
			if got, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(got) != "a\n" {
				t.Errorf("a.txt = %q", got)
			}
		})
	}
}

// TestFullAutoRefusesLeavingTheSandbox: an escalation request, and a rerun
// without the sandbox after a denial, are refused unattended; the model
// learns why.
func TestFullAutoRefusesLeavingTheSandbox(t *testing.T) {
	out := outsideDir(t)
	ws := filepath.Join(out, "ws")
	os.MkdirAll(ws, 0o755)
	target := filepath.Join(out, "escaped")
	esc := fakemodel.FunctionCall("c1", "shell", `{"command":["touch",`+jsonString(target)+`],"sandbox_permissions":"require_escalated","justification":"needs it"}`)
	output, stderr, code := unattendedRun(t, ws, esc, "--full-auto")
	if code != 0 || !strings.Contains(output, "refused: agent-ls runs unattended") || !strings.Contains(output, "outside the sandbox") {
		t.Errorf("escalation: exit %d, output %q\n%s", code, output, stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the escalated command ran")
	}

	plain := fakemodel.FunctionCall("c1", "shell", `{"command":["touch",`+jsonString(target)+`]}`)
	output, stderr, code = unattendedRun(t, ws, plain, "--yes", "--approval-policy", "on-failure")
	if code != 0 || !strings.Contains(output, "not run again without the sandbox") {
		t.Errorf("on-failure rerun: exit %d, output %q\n%s", code, output, stderr)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the denied command was rerun without the sandbox")
	}

	// The control: with the explicit flag the same command runs
	// unsandboxed, so the refusals above were the policy's doing.
	_, stderr, code = unattendedRun(t, ws, plain, "--dangerously-bypass-sandbox")
	if _, err := os.Stat(target); err != nil || code != 0 {
		t.Errorf("--dangerously-bypass-sandbox: exit %d, %v\n%s", code, err, stderr)
	}
}

func TestExecUnattendedFlags(t *testing.T) {
	m := fakemodel.New()
	defer m.Close()
	for _, args := range [][]string{
		{"--yes", "--sandbox", "danger-full-access"},
		{"--full-auto", "--sandbox", "danger-full-access"},
		{"--dangerously-bypass-sandbox", "--sandbox", "workspace-write"},
		{"--sandbox", "yolo"},
		{"--approval-policy", "sometimes"},
	} {
		var stderr bytes.Buffer
		cmd := execCmd(t, m, append(args, "hi")...)
		cmd.Stderr = &stderr
		if code := exitCode(cmd.Run()); code != 2 {
			t.Errorf("%q: exit %d, want 2\n%s", args, code, stderr.String())
		}
	}
	if n := len(m.Requests()); n != 0 {
		t.Errorf("%d model requests for usage errors", n)
	}
}

// TestExecRelativeCd: --cd is made absolute before anything uses it.
func TestExecRelativeCd(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("ok"))
	defer m.Close()
	cmd := execCmd(t, m, "--cd", "sub", "hi")
	sub := filepath.Join(cmd.Dir, "sub")
	os.Mkdir(sub, 0o755)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr.String())
	}
	reqs := m.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "<cwd>"+sub+"</cwd>") {
		t.Errorf("the session cwd is not %s", sub)
	}
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}
