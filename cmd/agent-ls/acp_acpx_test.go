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

// acpxEnv is a project acpx runs agent-ls acp in: the workspace, HOME
// (acpx's ~/.acpx), agent-ls's state and the fake model agent-ls talks to.
type acpxEnv struct {
	node, cli       string
	ws, home, state string
	model           *fakemodel.Server
}

// newACPXEnv makes a project whose model plays steps.
func newACPXEnv(t *testing.T, node, cli string, steps ...fakemodel.Step) *acpxEnv {
	m := fakemodel.New(steps...)
	t.Cleanup(m.Close)
	return &acpxEnv{node: node, cli: cli, ws: t.TempDir(), home: t.TempDir(), state: t.TempDir(), model: m}
}

// acpxRun is one acpx command run against agent-ls acp: what it printed,
// how it exited, and the project it ran in.
type acpxRun struct {
	*acpxEnv
	stdout, stderr string
	// code is acpx's exit status (5: a permission was refused).
	code int
}

// runACPX runs acpx in a new project whose model plays steps.
func runACPX(t *testing.T, node, cli string, args []string, steps ...fakemodel.Step) acpxRun {
	t.Helper()
	return newACPXEnv(t, node, cli, steps...).run(t, args...)
}

// run runs acpx as its users run a custom agent: in the project, with
// --agent naming the agent's command line, then args (global flags, a
// command, the prompt).
func (e *acpxEnv) run(t *testing.T, args ...string) acpxRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	// acpx splits --agent as a shell would: the path is quoted.
	agent := "'" + strings.ReplaceAll(binary, "'", `'\''`) + "' acp"
	cmd := exec.CommandContext(ctx, e.node, append([]string{e.cli, "--agent", agent}, args...)...)
	cmd.Dir = e.ws
	cmd.Env = append(os.Environ(), "HOME="+e.home, "XDG_STATE_HOME="+e.state, "OPENAI_BASE_URL="+e.model.URL(),
		"OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex")
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := acpxRun{acpxEnv: e, stdout: stdout.String(), stderr: stderr.String()}
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

// ok fails the test unless acpx exited 0.
func (r acpxRun) ok(t *testing.T) {
	t.Helper()
	if r.code != 0 {
		t.Errorf("acpx exited %d", r.code)
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

// messages returns the user and assistant messages of a model request,
// "role: text" joined by "|".
func messages(req *fakemodel.Request) string {
	var out []string
	in, _ := req.JSON["input"].([]any)
	for _, it := range in {
		item, _ := it.(map[string]any)
		if text, ok := item["content"].(string); ok && item["type"] == "message" && (item["role"] == "user" || item["role"] == "assistant") {
			out = append(out, item["role"].(string)+": "+text)
		}
	}
	return strings.Join(out, "|")
}

// TestACPWithACPX runs acpx, a headless ACP client, against agent-ls acp
// as its users do (acpx --approve-all --agent 'agent-ls acp' exec
// PROMPT): a streamed answer; a command run in the sandbox, shown as a
// tool call with its output; a command outside the sandbox approved by
// --approve-all, and refused by acpx's default (no terminal to ask on),
// which exits 5 with nothing run and the model told; a saved session
// (sessions new, then prompts) that a prompt resumes in a new agent-ls
// with the conversation so far, listed by its title. No run shows an
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
		r.ok(t)
		r.has(t, "[client] session/new", "hello from agent-ls\n", "[done] end_turn")
	})

	t.Run("command", func(t *testing.T) {
		r := runACPX(t, node, cli, []string{"--approve-all", "exec", "write hi.txt"},
			shell("c1", "echo hi > hi.txt && echo wrote $(cat hi.txt)", ""), fakemodel.Say("hi.txt is written"))
		r.ok(t)
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
		r.ok(t)
		if b, err := os.ReadFile(filepath.Join(r.ws, "out.txt")); err != nil || string(b) != "out\n" {
			t.Errorf("out.txt = %q, %v", b, err)
		}
		r.has(t, "[client] session/request_permission", "[tool] Run echo out > out.txt (completed)", "done\n")
	})

	t.Run("session", func(t *testing.T) {
		e := newACPXEnv(t, node, cli, fakemodel.Say("first answer"), fakemodel.Say("second answer"))
		id := strings.TrimSpace(e.run(t, "sessions", "new").stdout)
		if !strings.HasPrefix(id, "s-") {
			t.Fatalf("sessions new printed %q, not agent-ls's session id", id)
		}
		// acpx keeps agent-ls running for the next prompt until it has
		// been idle --ttl seconds; the prompt after starts it again and
		// resumes the session.
		r := e.run(t, "--ttl", "1", "first prompt")
		r.ok(t)
		r.has(t, "first answer\n")
		deadline := time.Now().Add(20 * time.Second)
		for !strings.Contains(e.run(t, "status").stdout, "status: idle") {
			if time.Now().After(deadline) {
				t.Fatal("acpx's queue owner still runs after --ttl 1")
			}
			time.Sleep(500 * time.Millisecond)
		}
		r = e.run(t, "--ttl", "1", "second prompt")
		r.ok(t)
		r.has(t, "[client] session/resume", "second answer\n")
		reqs := e.model.Requests()
		if got, want := messages(reqs[len(reqs)-1]), "user: first prompt|assistant: first answer|user: second prompt"; !strings.HasSuffix(got, want) {
			t.Errorf("the model was sent %q, not the conversation ending %q", got, want)
		}
		if r := e.run(t, "sessions", "list"); !strings.Contains(r.stdout, id+"\tfirst prompt\t") {
			t.Errorf("sessions list lacks %s, titled first prompt", id)
		}
		e.run(t, "sessions", "close").ok(t)
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
	t.Run("no-fs", func(t *testing.T) {
		// acpx asks before every fs/write_text_file and, with nobody to
		// ask, refuses it and stops; with --no-fs agent-ls writes the
		// change itself, under its own approval policy (which does not
		// ask for a change inside the workspace).
		r := runACPX(t, node, cli, []string{"--no-fs", "exec", "add new.txt"},
			fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", "*** Begin Patch\n*** Add File: new.txt\n+fresh\n*** End Patch")),
			fakemodel.Say("added"))
		r.ok(t)
		if data, _ := os.ReadFile(filepath.Join(r.ws, "new.txt")); string(data) != "fresh\n" {
			t.Errorf("new.txt holds %q", data)
		}
		r.has(t, "added\n")
	})
}
