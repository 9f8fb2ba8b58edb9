package tools

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// terminalEnv is testEnv with a store of command sessions, closed when
// the test ends, and commands allowed in the sandbox.
func terminalEnv(t *testing.T) (*Env, *eventLog) {
	t.Helper()
	env, _ := testEnv(t)
	log := &eventLog{}
	env.Emit = log.emit
	env.Terminals = NewTerminals(log.emit)
	env.Approver = &fakeApprover{allow: true, sandbox: true}
	t.Cleanup(env.Terminals.Close)
	return env, log
}

// TestExecCommandTruncatesHeadAndTail: output over max_output_tokens keeps
// its first and last parts, says how many tokens were left out and how
// many there were; a command that exits returns its exit code, and its
// session is let go.
func TestExecCommandTruncatesHeadAndTail(t *testing.T) {
	env, _ := terminalEnv(t)
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "seq 1 100000", "yield_time_ms": 30000, "max_output_tokens": 100})
	text := out.Text
	if out.Failed || !strings.Contains(text, "Process exited with code 0\n") || strings.Contains(text, "session ID") {
		t.Fatalf("output %q", text)
	}
	// seq 1 100000 prints 588895 bytes: 147224 tokens of 4 bytes.
	if !strings.Contains(text, "Original token count: 147224\n") {
		t.Errorf("token count missing: %q", text)
	}
	body := text[strings.Index(text, "Output:\n")+len("Output:\n"):]
	if !strings.HasPrefix(body, "1\n2\n3\n") || !strings.HasSuffix(body, "99999\n100000\n") {
		t.Errorf("head or tail missing: %q", body)
	}
	if !strings.Contains(body, "tokens truncated…") || len(body) > 100*bytesPerToken+64 {
		t.Errorf("not cut in the middle to the budget (%d bytes): %q", len(body), body)
	}
	if got := env.Terminals.Live(); got != 0 {
		t.Errorf("%d sessions kept after the command exited and was read", got)
	}
}

// TestTruncateTokens: the cut keeps whole characters and counts what it
// left out.
func TestTruncateTokens(t *testing.T) {
	s := strings.Repeat("é", 100) // 200 bytes
	got := truncateTokens(s, 10)  // 40 bytes: 20 + 20
	if !strings.HasPrefix(got, strings.Repeat("é", 10)+"\n…40 tokens truncated…\n") || !strings.HasSuffix(got, strings.Repeat("é", 10)) {
		t.Errorf("%q", got)
	}
	if truncateTokens("short", 10) != "short" {
		t.Error("short text cut")
	}
}

// TestSixtyFifthSessionRefused: with 64 sessions open, a 65th is refused
// with a message that says how to end one with write_stdin; closing the
// store kills them all, every process they started included.
func TestSixtyFifthSessionRefused(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 64 commands")
	}
	env, _ := terminalEnv(t)
	marker := proctest.Marker()
	for i := range MaxTerminals {
		if _, err := env.Terminals.start(env, terminalSpec{callID: "c" + strconv.Itoa(i), argv: []string{"bash", "-c", "exec -a " + marker + " sleep 1000"}, dir: env.Cwd, sandboxed: true}); err != nil {
			t.Fatalf("session %d: %v", i, err)
		}
	}
	out := callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1063, "chars": "x"})
	if !strings.Contains(out.Text, "Warning: 64 of at most 64 command sessions are open") {
		t.Errorf("no warning with 64 open: %q", out.Text)
	}
	out = callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "true"})
	if !out.Failed || !strings.Contains(out.Text, "64 command sessions are open") || !strings.Contains(out.Text, "write_stdin") || !strings.Contains(out.Text, "1000, 1001") {
		t.Errorf("65th: %+v", out)
	}
	env.Terminals.Close()
	proctest.Gone(t, marker)
	if out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "true"}); !out.Failed || !strings.Contains(out.Text, "closing") {
		t.Errorf("after close: %+v", out)
	}
}

// TestWriteStdinPipes: a command with pipes reads what write_stdin types;
// the answer after its exit has the exit code, and a later write_stdin
// finds no session.
func TestWriteStdinPipes(t *testing.T) {
	env, log := terminalEnv(t)
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "read line; echo got:$line; exit 3", "yield_time_ms": 250})
	if !strings.Contains(out.Text, "Process running with session ID 1000\n") {
		t.Fatalf("start: %q", out.Text)
	}
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "hello\n", "yield_time_ms": 30000})
	if !strings.Contains(out.Text, "Process exited with code 3\n") || !strings.Contains(out.Text, "got:hello") || !out.Failed {
		t.Errorf("write: %+v", out)
	}
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000})
	if !out.Failed || !strings.Contains(out.Text, "no command session 1000") {
		t.Errorf("after exit: %+v", out)
	}
	var types []string
	for _, p := range log.snapshot() {
		switch e := p.(type) {
		case event.TerminalStarted:
			if e.TerminalID != "1000" || e.CallID != "c1" || e.TTY || e.Command[2] != "read line; echo got:$line; exit 3" {
				t.Errorf("started: %+v", e)
			}
			types = append(types, "started")
		case event.TerminalExited:
			if e.TerminalID != "1000" || e.ExitCode != 3 {
				t.Errorf("exited: %+v", e)
			}
			types = append(types, "exited")
		}
	}
	if strings.Join(types, ",") != "started,exited" {
		t.Errorf("events %v", types)
	}
}

// TestWriteStdinUnsandboxedAsks: input for a command outside the sandbox
// goes to the approver with the exact characters; a refusal types
// nothing, and an approver that cannot decide input refuses.
func TestWriteStdinUnsandboxedAsks(t *testing.T) {
	env, _ := terminalEnv(t)
	ia := &inputApprover{fakeApprover: fakeApprover{allow: true, sandbox: false}}
	env.Approver = ia
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "head -n 1", "yield_time_ms": 250, "sandbox_permissions": "require_escalated", "justification": "why", "prefix_rule": []string{"head"}})
	if !strings.Contains(out.Text, "session ID 1000") || ia.execs[0].Justification != "why (suggested prefix rule, not applied: head)" || !ia.execs[0].Escalated {
		t.Fatalf("start: %q %+v", out.Text, ia.execs)
	}
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "no\n"})
	if !out.Rejected || len(ia.inputs) != 1 || ia.inputs[0].Chars != "no\n" || ia.inputs[0].SessionID != 1000 {
		t.Fatalf("refused input: %+v %+v", out, ia.inputs)
	}
	ia.allowInput = true
	out = callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1000, "chars": "yes\n", "yield_time_ms": 30000})
	body := out.Text[strings.Index(out.Text, "Output:\n"):]
	if !strings.Contains(out.Text, "Process exited with code 0") || !strings.Contains(body, "yes") || strings.Contains(body, "no") || len(ia.inputs) != 2 {
		t.Errorf("allowed input: %q", out.Text)
	}

	env.Approver = &fakeApprover{allow: true, sandbox: false}
	callTool(t, ExecCommand{}, env, map[string]any{"login": false, "cmd": "head -n 1", "yield_time_ms": 250})
	if out := callTool(t, WriteStdin{}, env, map[string]any{"session_id": 1001, "chars": "x\n"}); !out.Rejected {
		t.Errorf("no input approver: %+v", out)
	}
}

// inputApprover is a fakeApprover that decides input too.
type inputApprover struct {
	fakeApprover
	allowInput bool
	inputs     []InputRequest
}

func (a *inputApprover) Input(_ context.Context, req InputRequest) (Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.inputs = append(a.inputs, req)
	if !a.allowInput {
		return Decision{Reason: "rejected: no"}, nil
	}
	return Decision{Allowed: true}, nil
}

func (l *eventLog) snapshot() []event.Payload {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]event.Payload(nil), l.events...)
}

// TestExecCommandTTY: with tty the command has a terminal (a sane TERM,
// 80x24) in the sandbox, and cannot type into it (TIOCSTI).
func TestExecCommandTTY(t *testing.T) {
	env, _ := terminalEnv(t)
	script := "import os, fcntl, termios\n" +
		"print('tty', os.isatty(0), os.environ['TERM'], os.get_terminal_size())\n" +
		"try:\n    fcntl.ioctl(0, termios.TIOCSTI, b'x'); print('typed')\nexcept OSError as e:\n    print('refused', e)\n"
	out := callTool(t, ExecCommand{}, env, map[string]any{"login": false, "tty": true, "yield_time_ms": 30000,
		"cmd": "printf '%s' " + shellQuote(script) + " > probe.py && python3 probe.py"})
	if !strings.Contains(out.Text, "tty True xterm-256color os.terminal_size(columns=80, lines=24)") || !strings.Contains(out.Text, "refused") || strings.Contains(out.Text, "typed") {
		t.Errorf("tty: %q", out.Text)
	}
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
