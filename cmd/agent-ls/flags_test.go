package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestUsageErrorsExitTwo checks that each bad flag or setting is refused
// where it enters, with exit status 2, the problem and the usage line, and
// before anything runs (serve does not start).
func TestUsageErrorsExitTwo(t *testing.T) {
	tests := []struct {
		args []string
		env  string
		want string
	}{
		{[]string{"exec", "--wire-api", "foo", "hi"}, "", `"foo" is not a model API`},
		{[]string{"exec", "hi"}, "AGENT_LS_WIRE_API=foo", `AGENT_LS_WIRE_API: "foo" is not a model API`},
		{[]string{"--wire-api", "foo"}, "", `"foo" is not a model API`},
		{[]string{"exec", "--reasoning-effort", "extreme", "hi"}, "", `"extreme" is not a reasoning effort`},
		{[]string{"serve", "--reasoning-effort", "HIGH"}, "", `"HIGH" is not a reasoning effort`},
		{[]string{"exec", "--max-requests", "0", "hi"}, "", "at least 1"},
		{[]string{"exec", "--max-requests", "-3", "hi"}, "", "at least 1"},
		{[]string{"serve", "--sandbox", "bogus"}, "", `unknown sandbox mode "bogus"`},
		{[]string{"serve", "--approval-policy", "sometimes"}, "", `unknown approval policy "sometimes"`},
		{[]string{"exec", "--stream-idle-timeout", "0s", "hi"}, "", "must be positive"},
		{[]string{"exec", "hi"}, "AGENT_LS_STREAM_IDLE_TIMEOUT_MS=soon", "AGENT_LS_STREAM_IDLE_TIMEOUT_MS"},
		{[]string{"serve", "--log-level", "loud"}, "", "use debug, info, warn or error"},
		{[]string{"exec", "--cd", "/nonexistent/dir", "hi"}, "", "--cd /nonexistent/dir: not a directory"},
		{[]string{"exec", "--yes", "--sandbox", "danger-full-access", "hi"}, "", ""},
		{[]string{"demo", "--bogus"}, "", "flag provided but not defined"},
		{[]string{"nonsense"}, "", `unknown command "nonsense"`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " ")+" "+tc.env, func(t *testing.T) {
			cmd := exec.Command(binary, tc.args...)
			cmd.Dir = t.TempDir()
			cmd.Env = append(os.Environ(), "OPENAI_API_KEY=test", "OPENAI_BASE_URL=http://127.0.0.1:1", "XDG_STATE_HOME="+t.TempDir())
			if tc.env != "" {
				cmd.Env = append(cmd.Env, tc.env)
			}
			// A server that started would wait on stdin: give it none
			// that ends, so that starting shows as a hang, not a pass.
			stdin, _ := cmd.StdinPipe()
			defer stdin.Close()
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			cmd.Stdout = io.Discard
			code := exitCode(cmd.Run())
			if code != 2 || !strings.Contains(stderr.String(), tc.want) || !strings.Contains(stderr.String(), "Usage:") {
				t.Errorf("exit %d, stderr:\n%s\nwant exit 2, %q and the usage line", code, stderr.String(), tc.want)
			}
		})
	}
}

// TestServeOnATerminalSaysWhatItIs runs agent-ls with no arguments on a
// terminal, as someone trying it by hand would.
func TestServeOnATerminalSaysWhatItIs(t *testing.T) {
	if _, err := exec.LookPath("script"); err != nil {
		t.Skip("SKIPPING: no `script` (util-linux) to give the command a terminal")
	}
	cmd := exec.Command("script", "-qec", binary, "/dev/null")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+t.TempDir())
	// Ctrl-D on the terminal ends the server's input.
	cmd.Stdin = strings.NewReader("\x04")
	out, _ := cmd.CombinedOutput()
	for _, want := range []string{"agent-ls is a language server", "waiting for LSP messages on stdin", "agent-ls demo", "agent-ls exec"} {
		if !bytes.Contains(out, []byte(want)) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
