package main

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// On a terminal, exec asks the user; `script` gives it one.
func TestExecAsksOnTheTerminal(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("SKIPPING: no `script` (util-linux) to give the command a terminal")
	}
	m := fakemodel.New(
		fakemodel.Answer(shellCall("c1", "touch", "made-on-tty")),
		fakemodel.Say("made it"),
	)
	defer m.Close()
	dir := t.TempDir()
	cmd := exec.Command("script", "-qec", binary+" exec --approval-policy untrusted 'make a file'", "/dev/null")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Answer "y" once the question is on the screen.
	seen := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		var all strings.Builder
		asked := false
		for {
			chunk := make([]byte, 4096)
			n, err := r.Read(chunk)
			all.Write(chunk[:n])
			if !asked && strings.Contains(all.String(), "[y] allow once") {
				asked = true
				io.WriteString(stdin, "y\n")
			}
			if err != nil {
				seen <- all.String()
				return
			}
		}
	}()
	// Read to the end before Wait, which closes the pipe and would drop
	// what is still unread.
	select {
	case out := <-seen:
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exec on a terminal: %v\n%s", err, out)
		}
		if !strings.Contains(out, "? run touch made-on-tty") || !strings.Contains(out, "made it") {
			t.Errorf("terminal output:\n%s", out)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("exec did not finish")
	}
	if _, err := os.Stat(filepath.Join(dir, "made-on-tty")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
}

// On a terminal, "allow always" covers the command asked about and
// nothing longer: the longer command the model asks for next is put to
// the user again (who rejects it here), and the question says what
// "always" covers.
func TestExecAlwaysOnTheTerminalCoversOnlyTheExactCommand(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("SKIPPING: no `script` (util-linux) to give the command a terminal")
	}
	escaped := filepath.Join(outsideDir(t), "escaped")
	m := fakemodel.New(
		fakemodel.Answer(escalatedCall("c1", "find", ".", "-maxdepth", "0")),
		fakemodel.Answer(escalatedCall("c2", "find", ".", "-maxdepth", "0")),
		fakemodel.Answer(escalatedCall("c3", "find", ".", "-maxdepth", "0", "-exec", "touch", escaped, ";")),
		fakemodel.Say("all done"),
	)
	defer m.Close()
	dir := t.TempDir()
	cmd := exec.Command("script", "-qec", binary+" exec --approval-policy on-request 'look around'", "/dev/null")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex", "XDG_STATE_HOME="+t.TempDir())
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Answer "a" to the first question on the screen, "n" to any other.
	seen := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		var all strings.Builder
		answered := 0
		for {
			chunk := make([]byte, 4096)
			n, err := r.Read(chunk)
			all.Write(chunk[:n])
			for strings.Count(all.String(), "[y] allow once") > answered {
				answered++
				if answered == 1 {
					io.WriteString(stdin, "a\n")
				} else {
					io.WriteString(stdin, "n\n")
				}
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
		if n := strings.Count(out, "[y] allow once"); n != 2 {
			t.Errorf("asked %d times, want twice (the command, then the longer one):\n%s", n, out)
		}
		if !strings.Contains(out, "-exec touch "+escaped) || !strings.Contains(out, "always = this exact command") || !strings.Contains(out, "all done") {
			t.Errorf("terminal output:\n%s", out)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("exec did not finish")
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Error("the longer command ran outside the sandbox on the strength of an \"always\" for its prefix")
	}
}

// onTerminal runs cmdline (a shell command line) under `script`, so it has
// a terminal, in dir with env; each time the screen shows a prompt's
// text it types its answer, once, in order. It returns the whole screen
// once the command ended, and how it ended.
func onTerminal(t *testing.T, dir string, env []string, cmdline string, answers ...[2]string) (string, error) {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("SKIPPING: no `script` (util-linux) to give the command a terminal")
	}
	cmd := exec.Command("script", "-qec", cmdline, "/dev/null")
	cmd.Dir, cmd.Env = dir, env
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	seen := make(chan string, 1)
	go func() {
		var all strings.Builder
		next := 0
		r := bufio.NewReader(stdout)
		for {
			chunk := make([]byte, 4096)
			n, err := r.Read(chunk)
			all.Write(chunk[:n])
			if next < len(answers) && strings.Contains(all.String(), answers[next][0]) {
				io.WriteString(stdin, answers[next][1])
				next++
			}
			if err != nil {
				seen <- all.String()
				return
			}
		}
	}()
	// Read to the end before Wait, which closes the pipe and would drop
	// what is still unread.
	select {
	case out := <-seen:
		return out, cmd.Wait()
	case <-time.After(60 * time.Second):
		t.Fatal("the command did not finish")
		return "", nil
	}
}
