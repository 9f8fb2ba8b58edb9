package tools

import (
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
)

// outputBody is what a command wrote, as an exec_command or write_stdin
// answer carries it.
func outputBody(text string) string {
	_, body, _ := strings.Cut(text, "Output:\n")
	return body
}

// TestPythonREPLOverThreeCalls: a Python REPL on a pty is driven over
// three calls: one defines a function, the next uses it, the last exits
// the REPL, whose answer carries the exit code.
func TestPythonREPLOverThreeCalls(t *testing.T) {
	env, _ := terminalEnv(t)
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "tty": true, "cmd": "python3 -i -q", "yield_time_ms": 2000})
	if !strings.Contains(out.Text, "Process running with session ID 1000\n") || !strings.Contains(outputBody(out.Text), ">>> ") {
		t.Fatalf("start: %q", out.Text)
	}
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "def twice(n):\n    return 2 * n\n\n", "yield_time_ms": 1000})
	if !strings.Contains(out.Text, "Process running with session ID 1000\n") {
		t.Fatalf("define: %q", out.Text)
	}
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "print('result', twice(21))\n", "yield_time_ms": 1000})
	if !strings.Contains(outputBody(out.Text), "result 42") || !strings.Contains(out.Text, "session ID 1000") {
		t.Fatalf("use: %q", out.Text)
	}
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "exit(5)\n", "yield_time_ms": 30000})
	if !strings.Contains(out.Text, "Process exited with code 5\n") || strings.Contains(out.Text, "session ID") {
		t.Errorf("exit: %q", out.Text)
	}
}

// TestYieldOrder: a call returns no earlier than the yield_time_ms it
// asked for while the command runs, and before it when the command
// exits first; an empty poll waits at least 5 seconds. Order only, no
// upper bound on a busy machine.
func TestYieldOrder(t *testing.T) {
	env, _ := terminalEnv(t)
	start := time.Now()
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "sleep 1000", "yield_time_ms": 600})
	if took := time.Since(start); took < 600*time.Millisecond || !strings.Contains(out.Text, "session ID 1000") {
		t.Errorf("returned after %v, asked 600ms: %q", took, out.Text)
	}
	start = time.Now()
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "", "yield_time_ms": 250})
	if took := time.Since(start); took < minPollYield || !strings.Contains(out.Text, "session ID 1000") {
		t.Errorf("an empty poll returned after %v, want at least %v", took, minPollYield)
	}
	start = time.Now()
	out = callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "true", "yield_time_ms": 30000})
	if took := time.Since(start); took >= 30*time.Second || !strings.Contains(out.Text, "Process exited with code 0") {
		t.Errorf("a command that exited at once returned after %v: %q", took, out.Text)
	}
}

// TestSplitCharacters: a character whose bytes come in two writes is
// held back until it is whole, in the model's answers and in the
// terminalOutput events alike; invalid bytes become U+FFFD.
func TestSplitCharacters(t *testing.T) {
	env, log := terminalEnv(t)
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": `printf 'a\xc3'; sleep 1; printf '\xa9b\xff'`, "yield_time_ms": 500})
	if body := outputBody(out.Text); body != "a" || !strings.Contains(out.Text, "session ID 1000") {
		t.Fatalf("first answer %q", out.Text)
	}
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "yield_time_ms": 30000})
	if body := outputBody(out.Text); body != "éb\uFFFD" || !strings.Contains(out.Text, "exited with code 0") {
		t.Errorf("second answer %q", out.Text)
	}
	var live strings.Builder
	for _, p := range log.snapshot() {
		if e, ok := p.(event.TerminalOutput); ok {
			live.WriteString(e.Data)
		}
	}
	if live.String() != "aéb\uFFFD" {
		t.Errorf("terminalOutput carried %q", live.String())
	}
}
