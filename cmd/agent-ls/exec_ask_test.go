package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// TestExecAskUserOnTheTerminal: on a terminal, exec asks the model's
// questions one after the other with numbered options and "Other"; a
// number picks an option, the last number asks for the user's own
// words, which the model reads as a note.
func TestExecAskUserOnTheTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("SKIPPING: no `script` (util-linux) to give the command a terminal")
	}
	m := fakemodel.New(askSteps(askArgs)...)
	defer m.Close()
	cmd := exec.Command("script", "-qec", binary+" exec 'set up the service'", "/dev/null")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// "2" (SQLite) for the first question; "9" (refused, asked again),
	// then "4" (Other) and the words for the second.
	answers := []string{"2", "9", "4"}
	seen := make(chan string, 1)
	var mu sync.Mutex
	var all strings.Builder
	go func() {
		r := bufio.NewReader(stdout)
		prompts, other := 0, false
		for {
			chunk := make([]byte, 4096)
			n, err := r.Read(chunk)
			mu.Lock()
			all.Write(chunk[:n])
			text := all.String()
			mu.Unlock()
			for ; prompts < strings.Count(text, "or Enter to skip] > ") && prompts < len(answers); prompts++ {
				io.WriteString(stdin, answers[prompts]+"\n")
			}
			if !other && strings.Contains(text, "your answer > ") {
				other = true
				io.WriteString(stdin, "8443, behind the proxy\n")
			}
			if err != nil {
				seen <- text
				return
			}
		}
	}()
	select {
	case out := <-seen:
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exec on a terminal: %v\n%s", err, out)
		}
		for _, want := range []string{"? agent-ls asks (1 of 2) · Database\r\n  Which database should the service use?\r\n    1) Postgres (Recommended) — Matches production.\r\n    2) SQLite — No server to run in tests.\r\n    3) Other (answer in your own words)",
			"? agent-ls asks (2 of 2) · Port", "4) Other (answer in your own words)", "! answer with a number from 1 to 4", "thanks"} {
			if !strings.Contains(out, want) {
				t.Errorf("the terminal does not show %q:\n%s", want, out)
			}
		}
	case <-time.After(60 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		t.Fatalf("exec did not finish:\n%s", all.String())
	}
	reqs := m.Requests()
	if len(reqs) != 2 || !offers(t, reqs[0], "request_user_input") {
		t.Fatalf("%d requests", len(reqs))
	}
	want := `{"answers":{"db":{"answers":["SQLite"]},"port":{"answers":["None of the above","user_note: 8443, behind the proxy"]}}}`
	if got := callOutput(t, reqs[1].Body); got != want {
		t.Errorf("the model read %q, want %q", got, want)
	}
}

// TestExecAskUserRefusedUnattended: under --yes, and without a
// terminal, request_user_input is not offered, and a call of it fails
// with the reason.
func TestExecAskUserRefusedUnattended(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--yes"}, "nobody answers questions in this run (agent-ls runs unattended: exec --yes or --full-auto)"},
		{nil, "this client cannot put questions to the user"},
	} {
		m := fakemodel.New(askSteps(askArgs)...)
		cmd := execCmd(t, m, append(tc.args, "set up the service")...)
		cmd.Stdin = strings.NewReader("")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if code := exitCode(cmd.Run()); code != 0 {
			t.Fatalf("%v: exit %d, stderr:\n%s", tc.args, code, errb.String())
		}
		reqs := m.Requests()
		m.Close()
		if len(reqs) != 2 {
			t.Fatalf("%v: %d requests", tc.args, len(reqs))
		}
		if offers(t, reqs[0], "request_user_input") {
			t.Errorf("%v: request_user_input is offered", tc.args)
		}
		if got := callOutput(t, reqs[1].Body); !strings.Contains(got, tc.want) {
			t.Errorf("%v: the call's result is %q, want %q", tc.args, got, tc.want)
		}
	}
}

// TestExecAskUserInPlanMode: in plan mode the tool is offered whatever
// the model's family (gpt-4.1's Codex toolset does not list it), and the
// answer reaches the model.
func TestExecAskUserInPlanMode(t *testing.T) {
	m := fakemodel.New(askSteps(`{"questions":[{"id":"db","header":"Database","question":"Which one?","options":[{"label":"Postgres","description":"As in production."},{"label":"SQLite","description":"No server."}]}]}`)...)
	defer m.Close()
	env := append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-4.1")
	if out, err := onTerminal(t, t.TempDir(), env, binary+" exec --plan 'plan the service'", [2]string{"or Enter to skip] > ", "1\n"}); err != nil {
		t.Fatalf("exec --plan on a terminal: %v\n%s", err, out)
	}
	reqs := m.Requests()
	if len(reqs) != 2 || !offers(t, reqs[0], "request_user_input") {
		t.Fatalf("%d requests; plan mode does not offer request_user_input to gpt-4.1", len(reqs))
	}
	if got, want := callOutput(t, reqs[1].Body), `{"answers":{"db":{"answers":["Postgres"]}}}`; got != want {
		t.Errorf("the model read %q, want %q", got, want)
	}
}
