package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// acpxDir holds acpx, the headless ACP client, pinned in its lockfile
// (make acp-client-deps installs it).
const acpxDir = "../../internal/acp/testdata/acpx"

// acpxRun is one acpx command run against agent-ls acp: what it printed,
// how it exited, the workspace it ran in and the model it talked to.
type acpxRun struct {
	stdout, stderr string
	// code is acpx's exit status (5: a permission was refused).
	code  int
	ws    string
	model *fakemodel.Server
}

// runACPX runs acpx as its users run a custom agent: in the project,
// with --agent naming the agent's command line, then args (global flags,
// exec and the prompt). agent-ls talks to a fake model that plays steps;
// HOME (acpx's ~/.acpx) and agent-ls's state are the test's own.
func runACPX(t *testing.T, node, cli string, args []string, steps ...fakemodel.Step) acpxRun {
	t.Helper()
	m := fakemodel.New(steps...)
	t.Cleanup(m.Close)
	ws, home, state := t.TempDir(), t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// acpx splits --agent as a shell would: the path is quoted.
	agent := "'" + strings.ReplaceAll(binary, "'", `'\''`) + "' acp"
	cmd := exec.CommandContext(ctx, node, append([]string{cli, "--agent", agent}, args...)...)
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_STATE_HOME="+state, "OPENAI_BASE_URL="+m.URL(),
		"OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := acpxRun{stdout: stdout.String(), stderr: stderr.String(), ws: ws, model: m}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		t.Fatalf("acpx %q: %v\n%s%s", args, err, r.stdout, r.stderr)
	}
	t.Logf("acpx %q exited %d\nstdout:\n%s\nstderr:\n%s", args, r.code, r.stdout, r.stderr)
	// acpx shows an error agent-ls's requests got from it as an [error]
	// line; none may come from agent-ls's own work (AGENTS.md looked for
	// where there is none, a session's start).
	for _, line := range strings.Split(r.stdout+r.stderr, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "[error]") {
			t.Errorf("acpx printed an error: %s", line)
		}
	}
	return r
}

// has fails the test unless the output has each of want.
func (r acpxRun) has(t *testing.T, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(r.stdout, w) {
			t.Errorf("acpx's output lacks %q", w)
		}
	}
}

// toolOutput returns what the model was sent back for its call id.
func (r acpxRun) toolOutput(t *testing.T, id string) string {
	t.Helper()
	for _, req := range r.model.Requests() {
		in, _ := req.JSON["input"].([]any)
		for _, it := range in {
			if item, _ := it.(map[string]any); item["type"] == "function_call_output" && item["call_id"] == id {
				out, _ := item["output"].(string)
				return out
			}
		}
	}
	t.Fatalf("the model was sent no output for %s", id)
	return ""
}

// TestACPWithACPX runs acpx, a headless ACP client, against agent-ls acp
// as its users do (acpx --approve-all --agent 'agent-ls acp' exec
// PROMPT): a streamed answer; a command run in the sandbox, shown as a
// tool call with its output; a command outside the sandbox approved by
// --approve-all, and refused by acpx's default (no terminal to ask on),
// which exits 5 with nothing run and the model told. No run shows an
// error.
func TestACPWithACPX(t *testing.T) {
	node, err := exec.LookPath("node")
	cli, _ := filepath.Abs(filepath.Join(acpxDir, "node_modules", "acpx", "dist", "cli.js"))
	if _, serr := os.Stat(cli); err != nil || serr != nil {
		if os.Getenv("AGENT_LS_ACP_CLIENT") == "required" {
			t.Fatalf("node or acpx is missing (make acp-client-deps): %v %v", err, serr)
		}
		t.Skip("node or acpx is missing: make acp-client-deps installs it")
	}
	shell := func(id, script, extra string) fakemodel.Step {
		return fakemodel.Answer(fakemodel.FunctionCall(id, "shell", `{"command":["bash","-lc",`+quoteJSON(script)+`]`+extra+`}`))
	}
	const escalated = `,"sandbox_permissions":"require_escalated","justification":"the test asks"`

	t.Run("answer", func(t *testing.T) {
		r := runACPX(t, node, cli, []string{"--approve-all", "exec", "say hello"}, fakemodel.Say("hello from agent-ls"))
		if r.code != 0 {
			t.Errorf("acpx exited %d", r.code)
		}
		r.has(t, "[client] session/new", "hello from agent-ls\n", "[done] end_turn")
	})

	t.Run("command", func(t *testing.T) {
		r := runACPX(t, node, cli, []string{"--approve-all", "exec", "write hi.txt"},
			shell("c1", "echo hi > hi.txt && echo wrote $(cat hi.txt)", ""), fakemodel.Say("hi.txt is written"))
		if r.code != 0 {
			t.Errorf("acpx exited %d", r.code)
		}
		if b, err := os.ReadFile(filepath.Join(r.ws, "hi.txt")); err != nil || string(b) != "hi\n" {
			t.Errorf("hi.txt = %q, %v", b, err)
		}
		r.has(t, "[tool] Run echo hi > hi.txt && echo wrote $(cat hi.txt) (completed)", "kind: execute", "wrote hi\n",
			"hi.txt is written\n", "[done] end_turn")
		if out := r.toolOutput(t, "c1"); !strings.Contains(out, "Exit code: 0") || !strings.Contains(out, "wrote hi") {
			t.Errorf("the model was sent %q", out)
		}
	})

	t.Run("approved", func(t *testing.T) {
		r := runACPX(t, node, cli, []string{"--approve-all", "exec", "write out.txt"},
			shell("c2", "echo out > out.txt", escalated), fakemodel.Say("done"))
		if r.code != 0 {
			t.Errorf("acpx exited %d", r.code)
		}
		if b, err := os.ReadFile(filepath.Join(r.ws, "out.txt")); err != nil || string(b) != "out\n" {
			t.Errorf("out.txt = %q, %v", b, err)
		}
		r.has(t, "[client] session/request_permission", "[tool] Run echo out > out.txt (completed)", "done\n")
	})

	t.Run("refused", func(t *testing.T) {
		r := runACPX(t, node, cli, []string{"exec", "write out.txt"},
			shell("c3", "echo out > out.txt", escalated), fakemodel.Say("not done"))
		if r.code != 5 {
			t.Errorf("acpx exited %d, not 5 (a permission refused)", r.code)
		}
		if _, err := os.Stat(filepath.Join(r.ws, "out.txt")); !os.IsNotExist(err) {
			t.Errorf("out.txt exists after the command was refused: %v", err)
		}
		r.has(t, "[client] session/request_permission", "[tool] Run echo out > out.txt (failed)", "not done\n")
		if out := r.toolOutput(t, "c3"); !strings.Contains(out, "declined") {
			t.Errorf("the model was sent %q", out)
		}
	})
}
