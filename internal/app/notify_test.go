package app

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// /dev/null is a character device but no terminal: exec must not take it
// for one (and ask it questions).
func TestDevNullIsNoTerminal(t *testing.T) {
	f, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(f) {
		t.Error("/dev/null taken for a terminal")
	}
	if isTerminal(&bytes.Buffer{}) {
		t.Error("a buffer taken for a terminal")
	}
}

// The bell is the default; OSC 9 goes to terminals known to show it, or
// when asked for; the words are fixed.
func TestTerminalRing(t *testing.T) {
	t.Setenv("TERM_PROGRAM", "xterm")
	t.Setenv("KITTY_WINDOW_ID", "")
	t.Setenv("WT_SESSION", "")
	for _, c := range []struct {
		method  string
		env     string
		waiting bool
		want    string
	}{
		{"auto", "", false, "\a"},
		{"", "", true, "\a"},
		{"auto", "iTerm.app", false, "\x1b]9;agent-ls: turn done\a"},
		{"osc9", "", true, "\x1b]9;agent-ls: waiting for you\a"},
		{"bel", "WezTerm", true, "\a"},
	} {
		if c.env != "" {
			t.Setenv("TERM_PROGRAM", c.env)
		}
		var b bytes.Buffer
		terminalRing(&b, c.method)(c.waiting)
		if b.String() != c.want {
			t.Errorf("%+v: rang %q", c, b.String())
		}
		t.Setenv("TERM_PROGRAM", "xterm")
	}
}

// A notify program that cannot start is logged, and agent-ls goes on; a
// question nobody is asked is not notified of.
func TestNotifyProgramFailures(t *testing.T) {
	var logged strings.Builder
	log := slog.New(slog.NewTextHandler(&logged, nil))
	n := &notifier{argv: func() []string { return []string{filepath.Join(t.TempDir(), "missing")} }, log: log}
	n.attention(agent.Attention{SessionID: "s"})
	n.running.Wait()
	if !strings.Contains(logged.String(), "notify: the program did not start") {
		t.Errorf("log: %s", logged.String())
	}

	// A waiting notice nobody is asked about is none.
	out := filepath.Join(t.TempDir(), "out")
	n = &notifier{argv: func() []string { return []string{"/bin/sh", "-c", `printf '%s\n' "$1" >> "$0"`, out} }, nobodyAsked: true, log: log}
	n.attention(agent.Attention{SessionID: "s", Waiting: true, What: "exec"})
	n.attention(agent.Attention{SessionID: "s", Prompt: "p"})
	n.running.Wait()
	if data, _ := os.ReadFile(out); strings.Count(string(data), "\n") != 1 || !strings.Contains(string(data), `"agent-turn-complete"`) {
		t.Errorf("notified %q", data)
	}
}
