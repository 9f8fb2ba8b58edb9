package tools

import (
	"context"
	"encoding/json"
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
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "tty": true, "cmd": "python3 -i -q", "yield_time_ms": 1000})
	if !strings.Contains(out.Text, "Process running with session ID 1000\n") {
		t.Fatalf("start: %q", out.Text)
	}
	seen := outputBody(out.Text)
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "def twice(n):\n    return 2 * n\n\n", "yield_time_ms": 1000})
	if !strings.Contains(out.Text, "Process running with session ID 1000\n") {
		t.Fatalf("define: %q", out.Text)
	}
	seen += outputBody(out.Text)
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "print('result', twice(21))\n", "yield_time_ms": 1000})
	seen += outputBody(out.Text)
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "exit(5)\n", "yield_time_ms": 30000})
	seen += outputBody(out.Text)
	if !strings.Contains(out.Text, "Process exited with code 5\n") || strings.Contains(out.Text, "session ID") {
		t.Errorf("exit: %q", out.Text)
	}
	// The pty echoes the input; the result is the REPL's own line.
	if !strings.Contains(seen, ">>> ") || !strings.Contains(seen, "\nresult 42") {
		t.Errorf("the REPL's output: %q", seen)
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
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": `printf 'a\xc3'; sleep 3; printf '\xa9b\xff'`, "yield_time_ms": 1500})
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

// callToolCtx is callTool under ctx.
func callToolCtx(ctx context.Context, t *testing.T, h Handler, env *Env, args any) Output {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewRegistry(h)
	if err != nil {
		t.Fatal(err)
	}
	c := &Call{CallID: "c1", Name: h.Spec().Name, Type: Function, Arguments: raw}
	return r.Run(ctx, env, []*Call{c}, func(*Call, Handler, Result) {})[0].Output
}

// TestHugeInputToACommandThatDoesNotRead: write_stdin with more than a
// pipe holds, to a command that never reads, returns after its yield and
// says how much the command took; the session stays usable and a turn's
// end does not wait on it.
func TestHugeInputToACommandThatDoesNotRead(t *testing.T) {
	env, _ := terminalEnv(t)
	callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "sleep 1000", "yield_time_ms": 250})
	huge := strings.Repeat("x", 4<<20)
	done := make(chan Output, 1)
	go func() {
		done <- callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": huge, "yield_time_ms": 500})
	}()
	select {
	case out := <-done:
		if !strings.Contains(out.Text, "session ID 1000") || !strings.Contains(out.Text, "of your 4194304 bytes") {
			t.Errorf("answer %q", out.Text)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("write_stdin blocked on a command that does not read its input")
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(300 * time.Millisecond); cancel() }()
	start := time.Now()
	callToolCtx(ctx, t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "more\n", "yield_time_ms": 30000})
	if took := time.Since(start); took > 20*time.Second {
		t.Errorf("a cancelled write_stdin returned after %v", took)
	}
	if err := env.Terminals.Write(1000, "typed by the user\n"); err != nil {
		t.Errorf("the user's input: %v", err)
	}
}

// TestWriteStdinToAKilledSession: input for a session the user killed
// types nothing and asks nobody, even outside the sandbox; the answer
// says it ended, who ended it, and lets it go.
func TestWriteStdinToAKilledSession(t *testing.T) {
	env, _ := terminalEnv(t)
	ia := &inputApprover{fakeApprover: fakeApprover{allow: true, sandbox: false}, allowInput: true}
	env.Approver = ia
	callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "sleep 1000", "yield_time_ms": 250, "sandbox_permissions": "require_escalated"})
	if err := env.Terminals.Kill(1000, "at the user's request"); err != nil {
		t.Fatal(err)
	}
	out := callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "x\n"})
	if !strings.Contains(out.Text, "Process exited with code") || !strings.Contains(out.Text, "killed this command session at the user's request") || len(ia.inputs) != 0 {
		t.Errorf("answer %q, asked %d times", out.Text, len(ia.inputs))
	}
	for _, id := range []float64{1000, 99999, -1, 1000.5} {
		if out := callTool(t, WriteStdin{}, env, map[string]any{"session_id": id, "chars": "x"}); !out.Failed || !strings.Contains(out.Text, "no command session") {
			t.Errorf("session %v: %q", id, out.Text)
		}
	}
}

// TestSessionBufferKeepsHeadAndTail: output beyond the session's 1 MiB
// buffer, written before the model reads it, reaches the model as its
// first and last parts with how many bytes were not kept, and the token
// count is that of all the command wrote.
func TestSessionBufferKeepsHeadAndTail(t *testing.T) {
	env, _ := terminalEnv(t)
	// 3,388,895 bytes: 847,224 tokens.
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "seq 1 500000", "yield_time_ms": 30000, "max_output_tokens": 1 << 20})
	body := outputBody(out.Text)
	if !strings.Contains(out.Text, "Process exited with code 0") || !strings.Contains(out.Text, "Original token count: 847224\n") {
		t.Errorf("answer %q", out.Text[:strings.Index(out.Text, "Output:")])
	}
	if !strings.HasPrefix(body, "1\n2\n3\n") || !strings.HasSuffix(body, "499999\n500000\n") ||
		!strings.Contains(body, "bytes of output not kept") || len(body) > terminalBufferBytes+100 {
		t.Errorf("%d bytes, head %q, tail %q", len(body), body[:min(len(body), 20)], body[max(0, len(body)-20):])
	}
}

// TestClampYield: exec_command waits 10 s unless asked, from 250 ms to
// 30 s; a write 250 ms unless asked, at most 30 s; an empty poll from 5 s
// to 300 s; nonsense (negative, huge) stays within the bounds.
func TestClampYield(t *testing.T) {
	ms := time.Millisecond
	for _, tc := range []struct {
		asked       float64
		def, lo, hi time.Duration
		want        time.Duration
	}{
		{0, defaultExecYield, minYield, maxYield, 10 * time.Second},
		{10, defaultExecYield, minYield, maxYield, 250 * ms},
		{-5, defaultExecYield, minYield, maxYield, 10 * time.Second},
		{1500, defaultExecYield, minYield, maxYield, 1500 * ms},
		{1e300, defaultExecYield, minYield, maxYield, 30 * time.Second},
		{0, defaultWriteYield, minYield, maxYield, 250 * ms},
		{60_000, defaultWriteYield, minYield, maxYield, 30 * time.Second},
		{0, minPollYield, minPollYield, maxPollYield, 5 * time.Second},
		{1000, minPollYield, minPollYield, maxPollYield, 5 * time.Second},
		{120_000, minPollYield, minPollYield, maxPollYield, 120 * time.Second},
		{1e9, minPollYield, minPollYield, maxPollYield, 300 * time.Second},
	} {
		if got := clampYield(tc.asked, tc.def, tc.lo, tc.hi); got != tc.want {
			t.Errorf("clampYield(%v, %v, %v, %v) = %v, want %v", tc.asked, tc.def, tc.lo, tc.hi, got, tc.want)
		}
	}
	if maxOutputTokens(0) != 10_000 || maxOutputTokens(-1) != 10_000 || maxOutputTokens(50) != 50 {
		t.Error("max_output_tokens default or value")
	}
}
