package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

func execCmd(t *testing.T, m *fakemodel.Server, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(binary, append([]string{"exec"}, args...)...)
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex")
	return cmd
}

func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

func TestExecStreamsAnswerAndToolActivity(t *testing.T) {
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "update_plan", `{"plan":[{"step":"think","status":"completed"}]}`)),
		fakemodel.Answer(fakemodel.Message("The answer ", "is 42.")),
	)
	defer m.Close()
	var stdout, stderr bytes.Buffer
	cmd := execCmd(t, m, "what is the answer?")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if stdout.String() != "The answer is 42.\n" {
		t.Errorf("stdout %q", stdout.String())
	}
	for _, want := range []string{"▸ Update plan", "[x] think", "✓ update_plan"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// TestExecShowsRawReasoning: an open-weight model served over the
// Responses API (gpt-oss) gives its reasoning as reasoning_text, not a
// summary; exec shows it as it shows a summary, escaped.
func TestExecShowsRawReasoning(t *testing.T) {
	m := fakemodel.New(fakemodel.Answer(fakemodel.RawReasoning("The user asks \x1b[2Jthe answer."), fakemodel.Message("42.")))
	defer m.Close()
	var stdout, stderr bytes.Buffer
	cmd := execCmd(t, m, "what is the answer?")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), `thinking: The user asks \x1b[2Jthe answer.`) || stdout.String() != "42.\n" {
		t.Errorf("stdout %q, stderr:\n%s", stdout.String(), stderr.String())
	}
}

func TestExecJSON(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("hi there"))
	defer m.Close()
	var stdout bytes.Buffer
	cmd := execCmd(t, m, "--json", "hello")
	cmd.Stdout = &stdout
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d", code)
	}
	var types []string
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Seq  int    `json:"seq"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		types = append(types, ev.Type)
	}
	got := collapse(strings.Join(types, ","))
	if got != "turnStarted,messageDelta,message,usage,turnCompleted" {
		t.Errorf("events %s", got)
	}
}

func TestExecFailureExitsOne(t *testing.T) {
	m := fakemodel.New() // no script: every request fails for good
	defer m.Close()
	var stderr bytes.Buffer
	cmd := execCmd(t, m, "hello")
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 1 {
		t.Fatalf("exit %d, want 1; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "turn failed") {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestExecCtrlCInterrupts(t *testing.T) {
	gate := fakemodel.NewGate(5)
	step := fakemodel.Say("a long answer that never ends")
	step.Gate = gate
	m := fakemodel.New(step)
	defer m.Close()
	defer gate.Release()
	var stdout, stderr bytes.Buffer
	cmd := execCmd(t, m, "talk")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	<-gate.Reached()
	cmd.Process.Signal(syscall.SIGINT)
	if code := exitCode(cmd.Wait()); code != 130 {
		t.Fatalf("exit %d, want 130; stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q", stderr.String())
	}
}

func TestExecUsage(t *testing.T) {
	cmd := exec.Command(binary, "exec")
	cmd.Stdin = strings.NewReader("   ")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 2 || !strings.Contains(stderr.String(), "prompt is empty") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}

// The agent probes what the sandbox enforces once, when the first
// session needs it; the model learns what the probe, made here from Go
// too, finds.
func TestExecTellsTheModelWhatTheSandboxEnforces(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("ok"))
	defer m.Close()
	var stderr bytes.Buffer
	cmd := execCmd(t, m, "hi")
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	reqs := m.Requests()
	if len(reqs) == 0 {
		t.Fatal("no model request")
	}
	env := environmentOf(reqs[0])
	want := "<sandbox>" + sandbox.Probe().Summary() + "</sandbox>"
	if !strings.Contains(env, want) {
		t.Errorf("environment context lacks %s:\n%s", want, env)
	}
}

// TestExecModelCannotReadMCPTokens: the model's read_file of a stored
// MCP OAuth token is refused, and the token never reaches the model.
func TestExecModelCannotReadMCPTokens(t *testing.T) {
	state := t.TempDir()
	token := filepath.Join(state, "agent-ls", "mcp-auth", "docs.json")
	if err := os.MkdirAll(filepath.Dir(token), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(token, []byte(`{"access_token":"sk-secret-42"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	args, _ := json.Marshal(map[string]any{"file_path": token})
	m := fakemodel.New(fakemodel.Answer(fakemodel.FunctionCall("r1", "read_file", string(args))), fakemodel.Say("done"))
	defer m.Close()
	var stderr bytes.Buffer
	cmd := execCmd(t, m, "read the token")
	cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+state)
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	reqs := m.Requests()
	if len(reqs) < 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	body := string(reqs[1].Body)
	if strings.Contains(body, "sk-secret-42") || !strings.Contains(body, "agent-ls keeps") {
		t.Errorf("the model was sent:\n%s", body)
	}
}

// TestExecRefusesABlankPrompt: a prompt given as blank arguments is
// refused before anything starts, as an empty one on stdin is.
func TestExecRefusesABlankPrompt(t *testing.T) {
	for _, args := range [][]string{{""}, {"  ", "\t"}} {
		cmd := exec.Command(binary, append([]string{"exec"}, args...)...)
		cmd.Dir = t.TempDir()
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if code := exitCode(cmd.Run()); code != 2 || !strings.Contains(stderr.String(), "prompt is empty") {
			t.Errorf("exec %q: exit %d, stderr %q", args, code, stderr.String())
		}
	}
}

// TestExecFromDevNullIsNotATerminal: with stdin /dev/null nobody is
// asked: no question is printed, and what needs approval is rejected
// with the hint to use --yes.
func TestExecFromDevNullIsNotATerminal(t *testing.T) {
	m := fakemodel.New(
		fakemodel.Answer(shellCall("c1", "touch", "made")),
		fakemodel.Say("could not"),
	)
	defer m.Close()
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd := execCmd(t, m, "--approval-policy", "untrusted", "make a file")
	cmd.Stdin = null
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Run()
	out := stderr.String()
	if !strings.Contains(out, "stdin is not a terminal; use --yes to allow") || strings.Contains(out, "allow once") {
		t.Errorf("stderr:\n%s\nwant the rejection with its --yes hint and no question", out)
	}
	if _, err := os.Stat(filepath.Join(cmd.Dir, "made")); err == nil {
		t.Error("the command ran without approval")
	}
}

// TestExecListsChangedFiles: exec ends with the files the turn changed
// and their +N -M on stderr, and --diff prints the diff on stdout.
func TestExecListsChangedFiles(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: made.txt\n+one\n+two\n*** End Patch"
	m := fakemodel.New(fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", patch)), fakemodel.Say("made it"))
	defer m.Close()
	cmd := execCmd(t, m, "--full-auto", "--diff", "make a file")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "files changed: 1\n  made.txt  +2 -0 (new)\n") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
	if want := "made it\n--- /dev/null\n+++ b/made.txt\n@@ -0,0 +1,2 @@\n+one\n+two\n"; stdout.String() != want {
		t.Errorf("stdout %q, want %q", stdout.String(), want)
	}
}
