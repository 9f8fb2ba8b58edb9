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
