package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// notifyConfig is a user config whose notify program appends its last
// argument, one line each, to out.
func notifyConfig(out, extra string) string {
	return fmt.Sprintf("notify = [\"/bin/sh\", \"-c\", \"printf '%%s\\\\n' \\\"$1\\\" >> \\\"$0\\\"\", %q]\n%s", out, extra)
}

// notifications waits for n lines in the notify program's file (it runs
// without agent-ls waiting for it) and decodes them.
func notifications(t *testing.T, out string, n int) []map[string]any {
	t.Helper()
	var lines []string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		data, _ := os.ReadFile(out)
		if lines = strings.Split(strings.TrimSpace(string(data)), "\n"); len(data) > 0 && len(lines) >= n {
			break
		}
	}
	var got []map[string]any
	for _, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("notification %q: %v", l, err)
		}
		got = append(got, m)
	}
	if len(got) != n {
		t.Fatalf("%d notifications, want %d: %q", len(got), n, lines)
	}
	return got
}

// The user's notify program gets Codex's agent-turn-complete payload when
// exec's turn ends; a question nobody is there to answer (no terminal)
// is no notification.
func TestNotifyProgramWhenTheTurnEnds(t *testing.T) {
	m := fakemodel.New(
		fakemodel.Answer(shellCall("c1", "touch", "x")),
		fakemodel.Say("all done"),
	)
	defer m.Close()
	out := filepath.Join(t.TempDir(), "notified")
	cmd := execCmd(t, m, "--approval-policy", "untrusted", "make a file")
	cmd.Env = append(cmd.Env, writeConfig(t, notifyConfig(out, "")))
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("exec: %v\n%s", err, b)
	}
	n := notifications(t, out, 1)[0]
	if n["type"] != "agent-turn-complete" || n["status"] != "completed" || n["last-assistant-message"] != "all done" ||
		n["cwd"] != cmd.Dir || n["thread-id"] == "" || n["turn-id"] == "" {
		t.Errorf("notification %v", n)
	}
	if in, _ := n["input-messages"].([]any); len(in) != 1 || in[0] != "make a file" {
		t.Errorf("input-messages %v", n["input-messages"])
	}
}

// On a terminal with [tui] notifications, exec says it waits on the user
// before it asks and that the turn is done at its end, in fixed words
// (OSC 9 on a terminal known to show it), and the notify program hears
// of both.
func TestNotifyOnTheTerminal(t *testing.T) {
	m := fakemodel.New(
		fakemodel.Answer(shellCall("c1", "touch", "made-on-tty")),
		fakemodel.Say("made it"),
	)
	defer m.Close()
	out := filepath.Join(t.TempDir(), "notified")
	env := append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex", "TERM_PROGRAM=WezTerm",
		writeConfig(t, notifyConfig(out, "[tui]\nnotifications = true\n")))
	screen, err := onTerminal(t, t.TempDir(), env, binary+" exec --approval-policy untrusted 'make a file'", [2]string{"[y] allow once", "y\n"})
	if err != nil {
		t.Fatalf("exec on a terminal: %v\n%s", err, screen)
	}
	waiting, asked := strings.Index(screen, "\x1b]9;agent-ls: waiting for you\a"), strings.Index(screen, "[y] allow once")
	answered, done := strings.Index(screen, "made it"), strings.Index(screen, "\x1b]9;agent-ls: turn done\a")
	if waiting < 0 || asked < waiting || answered < 0 || done < answered {
		t.Errorf("rings at %d (waiting) %d (done), question at %d, answer at %d:\n%q", waiting, done, asked, answered, screen)
	}
	got := notifications(t, out, 2)
	if got[0]["type"] != "approval-requested" || got[0]["kind"] != "exec" || got[1]["type"] != "agent-turn-complete" {
		t.Errorf("notifications %v", got)
	}
	if c, _ := got[0]["command"].([]any); len(c) != 2 || c[0] != "touch" {
		t.Errorf("the approval's command: %v", got[0]["command"])
	}
}
