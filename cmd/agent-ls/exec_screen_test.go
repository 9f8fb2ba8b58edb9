package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// Hostile text from the model: a command whose argument paints a harmless
// command over itself (a carriage return, then erase-line), an OSC 52
// clipboard write, a screen clear, and a bidi override.
const (
	paintOver = "rm -rf ~ \r\x1b[2K? run ls -la"
	osc52     = "\x1b]52;c;cm0gLXJmIH4=\a"
	clearAll  = "\x1b[2J\x1b[H"
)

// screenPy renders a terminal's byte stream with pyte (a VT100 emulator)
// and prints the screen a user would see, one line per row.
const screenPy = `
import sys, pyte
screen = pyte.Screen(200, 60)
pyte.ByteStream(screen).feed(sys.stdin.buffer.read())
print("\n".join(line.rstrip() for line in screen.display))
`

// screenPython has Debian's python3-pyte (scripts/deps.sh installs it).
const screenPython = "/usr/bin/python3"

// renderScreen is what a terminal shows after raw.
func renderScreen(t *testing.T, raw []byte) string {
	t.Helper()
	cmd := exec.Command(screenPython, "-c", screenPy)
	cmd.Stdin = bytes.NewReader(raw)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("pyte: %v", err)
	}
	return strings.TrimRight(string(out), "\n")
}

func needPyte(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("SKIPPING: no `script` (util-linux) to give the command a terminal")
	}
	if err := exec.Command(screenPython, "-c", "import pyte").Run(); err != nil {
		t.Skipf("SKIPPING: no terminal emulator to render the screen with: %s cannot import pyte (apt-get install python3-pyte; make deps installs it): %v", screenPython, err)
	}
}

// On a terminal, the approval question shows the command that would run,
// whole and quoted word by word, whatever control characters the model
// put in it; the model's text, its reasoning and the tool lines cannot
// clear the screen, repaint a line or write the clipboard. The check is
// what a terminal emulator shows, not the bytes.
func TestExecTerminalShowsTheRealCommand(t *testing.T) {
	needPyte(t)
	argv := []string{"sh", "-c", paintOver}
	args, _ := json.Marshal(map[string]any{"command": argv})
	m := fakemodel.New(
		fakemodel.Answer(
			fakemodel.Reasoning("", "thinking "+osc52+"hard"),
			fakemodel.Message("Let me look."+clearAll),
			fakemodel.FunctionCall("c1", "shell", string(args)),
		),
		fakemodel.Say("All done\tGrüß dich ✓\nsecond line "+osc52+"\u202eexe.txt"),
	)
	defer m.Close()
	raw := runOnTerminal(t, m, "n\n", "exec --approval-policy untrusted 'look around'")
	if bytes.Contains(raw, []byte("\x1b")) {
		t.Errorf("the terminal got an escape sequence:\n%q", raw)
	}
	if bytes.Contains(raw, []byte("\u202e")) {
		t.Errorf("the terminal got a bidi override:\n%q", raw)
	}
	screen := renderScreen(t, raw)
	want := `? run sh -c $'rm -rf ~ \r\x1b[2K? run ls -la'`
	var question []string
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "? run") {
			question = append(question, l)
		}
	}
	if len(question) != 1 || question[0] != want {
		t.Errorf("the question reads %q, want %q; screen:\n%s", question, want, screen)
	}
	for _, want := range []string{"Let me look.", `\x1b[2J`, `thinking \x1b]52;c;cm0gLXJmIH4=\ahard`, `second line \x1b]52;c;cm0gLXJmIH4=\a\u202eexe.txt`, "[y] allow once"} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q:\n%s", want, screen)
		}
	}
	// The answer stays readable: its tab is a tab, its lines are lines,
	// its letters are letters.
	if !regexp.MustCompile(`(?m)^All done +Grüß dich ✓$`).MatchString(screen) {
		t.Errorf("the answer's first line is not shown as written:\n%s", screen)
	}
}

// runOnTerminal runs agent-ls with args on a terminal (`script` gives it
// one), types answer at the first approval question, and returns every
// byte the terminal received.
func runOnTerminal(t *testing.T, m *fakemodel.Server, answer, args string) []byte {
	t.Helper()
	cmd := exec.Command("script", "-qec", binary+" "+args, "/dev/null")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex", "TERM=xterm")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	seen := make(chan []byte, 1)
	go func() {
		r := bufio.NewReader(stdout)
		var all bytes.Buffer
		asked := false
		for {
			chunk := make([]byte, 4096)
			n, err := r.Read(chunk)
			all.Write(chunk[:n])
			if !asked && bytes.Contains(all.Bytes(), []byte("[y] allow once")) {
				asked = true
				io.WriteString(stdin, answer)
			}
			if err != nil {
				seen <- all.Bytes()
				return
			}
		}
	}()
	select {
	case out := <-seen:
		if err := cmd.Wait(); err != nil {
			t.Fatalf("exec on a terminal: %v\n%q", err, out)
		}
		return out
	case <-time.After(60 * time.Second):
		t.Fatal("exec did not finish")
		return nil
	}
}

// Piped, the answer is data: it reaches stdout as the model wrote it
// (tabs, escape sequences, any character), and --json carries it escaped
// by JSON alone. The activity on stderr is for people and is escaped.
func TestExecPipedAnswerIsUnchanged(t *testing.T) {
	answer := "#!/bin/sh\n\tprintf '\x1b[1mbold\x1b[0m'\n# \u202e ünïcode ✓\r\n"
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "update_plan", `{"plan":[{"step":"think`+"\\u001b[2J"+`","status":"completed"}]}`)),
		fakemodel.Answer(fakemodel.Message(answer)),
	)
	defer m.Close()
	var stdout, stderr bytes.Buffer
	cmd := execCmd(t, m, "write a script")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if stdout.String() != answer {
		t.Errorf("stdout %q, want %q", stdout.String(), answer)
	}
	if !strings.Contains(stderr.String(), `[x] think\x1b[2J`) || strings.Contains(stderr.String(), "\x1b") {
		t.Errorf("stderr %q", stderr.String())
	}

	m = fakemodel.New(fakemodel.Answer(fakemodel.Message(answer)))
	defer m.Close()
	stdout.Reset()
	cmd = execCmd(t, m, "--json", "write a script")
	cmd.Stdout = &stdout
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d", code)
	}
	found := false
	sc := bufio.NewScanner(&stdout)
	for sc.Scan() {
		var ev struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		found = found || (ev.Type == "message" && ev.Text == answer)
	}
	if !found {
		t.Errorf("no message event carries the answer as written:\n%s", stdout.String())
	}
}
