package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestExecElicitationDeclinedUnattended: under exec --yes, the reference
// server's form (offered only to a client that advertises elicitation)
// is declined: stderr says so, the server hears decline, and the model
// reads the server's result and why agent-ls declined.
func TestExecElicitationDeclinedUnattended(t *testing.T) {
	everything := everythingServer(t)
	configEnv := writeConfig(t, fmt.Sprintf(`[mcp_servers.everything]
command = %q
args = ["stdio"]
startup_timeout_sec = 60
enabled_tools = ["trigger-elicitation-request"]
approval = "auto"
`, everything))
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "everything__trigger-elicitation-request", `{}`)),
		fakemodel.Say("done"))
	defer m.Close()
	cmd := execCmd(t, m, "--yes", "--json", "ask me")
	cmd.Env = append(cmd.Env, configEnv)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, errb.String())
	}
	var output string
	for _, line := range strings.Split(out.String(), "\n") {
		var ev editor.Event
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "toolResult" && ev.CallID == "c1" {
			output = ev.Output
		}
	}
	for _, want := range []string{"User declined to provide the requested information", `"action": "decline"`,
		"[agent-ls: the MCP server's question was declined: nobody is there to answer under --yes]"} {
		if !strings.Contains(output, want) {
			t.Errorf("the model read %q, without %q", output, want)
		}
	}
	if want := "agent-ls: declined a question of the MCP server everything (nobody is there to answer under --yes)"; !strings.Contains(errb.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, errb.String())
	}
}

// TestExecElicitationOnTheTerminal: on a terminal, exec asks the
// reference server's form field by field; the name typed and the
// defaults taken reach the server, which the model reads.
func TestExecElicitationOnTheTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("SKIPPING: no `script` (util-linux) to give the command a terminal")
	}
	everything := everythingServer(t)
	configEnv := writeConfig(t, fmt.Sprintf(`[mcp_servers.everything]
command = %q
args = ["stdio"]
startup_timeout_sec = 60
enabled_tools = ["trigger-elicitation-request"]
approval = "auto"
`, everything))
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "everything__trigger-elicitation-request", `{}`)),
		fakemodel.Say("asked"))
	defer m.Close()
	cmd := exec.Command("script", "-qec", binary+" exec 'ask me'", "/dev/null")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex", configEnv)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// "y" to answer, "Ada" for the name (required, so asked first), then
	// "x" for the birth date (refused: asked again) and empty lines (the
	// defaults, or nothing) for the rest.
	answers := []string{"Ada", "x", "", "", "", "", "", "", "", "", "", "", "", "", ""}
	seen := make(chan string, 1)
	var mu sync.Mutex
	var all strings.Builder
	go func() {
		r := bufio.NewReader(stdout)
		answered, prompts := false, 0
		for {
			chunk := make([]byte, 4096)
			n, err := r.Read(chunk)
			mu.Lock()
			all.Write(chunk[:n])
			mu.Unlock()
			if !answered && strings.Contains(all.String(), "[y] answer") {
				answered = true
				io.WriteString(stdin, "y\n")
			}
			for ; prompts < strings.Count(all.String(), "  > ") && prompts < len(answers); prompts++ {
				io.WriteString(stdin, answers[prompts]+"\n")
			}
			if err != nil {
				seen <- all.String()
				return
			}
		}
	}()
	select {
	case out := <-seen:
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exec on a terminal: %v\n%s", err, out)
		}
		for _, want := range []string{"? the MCP server everything asks:", "Please provide inputs for the following fields:",
			"String (text, required)\r\n    Your full, legal name\r\n  > Ada", "String with date format (date, optional)",
			"! not a date (YYYY-MM-DD)", "Boolean (yes or no, optional)", "1) Superman", "asked"} {
			if !strings.Contains(out, want) {
				t.Errorf("the terminal does not show %q:\n%s", want, out)
			}
		}
	case <-time.After(90 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("exec did not finish:\n%s", all.String())
	}
	reqs := m.Requests()
	last := string(reqs[len(reqs)-1].Body)
	for _, want := range []string{"User provided the requested information", "Name: Ada", "Favorite Integer: 42"} {
		if !strings.Contains(last, want) {
			t.Errorf("the model did not read %q: %s", want, last)
		}
	}
}
