package agent

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// unifiedManager is a test manager whose sessions get exec_command and
// write_stdin.
func unifiedManager(t *testing.T, m *scriptedModel, fe Frontend) *Manager {
	t.Helper()
	on := true
	return managerWith(t, m, fe, func(o *Options) { o.Defaults.UnifiedExec = &on })
}

// jsonArgs is v as a call's arguments.
func jsonArgs(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// runTurnOf runs one turn of session id and fails unless it completed.
func runTurnOf(t *testing.T, mgr *Manager, rec *recorder, id, prompt string) string {
	t.Helper()
	turnID, err := startID(mgr.StartTurn(id, TurnInput{Prompt: prompt}))
	if err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %s: %+v", prompt, done)
	}
	return turnID
}

// TestUnifiedExecPythonREPL: a Python REPL on a pty, in the sandbox,
// driven over three turns (define, use, exit): the session lives across
// them, the sandbox still confines it, and its terminal events come in
// order with the turns' ids.
func TestUnifiedExecPythonREPL(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	mgr := unifiedManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": "python3 -q -i", "login": false, "tty": true, "yield_time_ms": 500}))),
		callTools(fcall("c2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "x = 6 * 7\n"}))), say("m1", "defined"),
		callTools(fcall("c3", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "print(x); open('/etc/agent-ls-probe', 'w')\n"}))), say("m2", "used"),
		callTools(fcall("c4", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "exit()\n", "yield_time_ms": 30000}))), say("m3", "done"))
	first := runTurnOf(t, mgr, rec, info.SessionID, "define")
	runTurnOf(t, mgr, rec, info.SessionID, "use")
	last := runTurnOf(t, mgr, rec, info.SessionID, "exit")

	out := outputs(m.last())
	if !strings.Contains(out["c1"], "Process running with session ID 1000") || !strings.Contains(out["c2"], "session ID 1000") {
		t.Fatalf("start and define: %q %q", out["c1"], out["c2"])
	}
	if !strings.Contains(out["c4"], "Process exited with code 0") {
		t.Errorf("exit: %q", out["c4"])
	}
	used := out["c3"] + out["c4"]
	if !strings.Contains(used, "42") {
		t.Errorf("the value defined in one turn is not there in the next: %q", used)
	}
	if !strings.Contains(used, "Read-only file system") && !strings.Contains(used, "Permission denied") {
		t.Errorf("the REPL wrote outside the workspace: %q", used)
	}
	var got []string
	for _, ev := range rec.all() {
		switch p := ev.Payload.(type) {
		case event.TerminalStarted:
			if !p.TTY || p.TerminalID != "1000" || p.CallID != "c1" || ev.TurnID != first {
				t.Errorf("started %+v in turn %q", p, ev.TurnID)
			}
			got = append(got, "started")
		case event.TerminalOutput:
			if len(got) == 0 || got[len(got)-1] != "output" {
				got = append(got, "output")
			}
		case event.TerminalExited:
			if p.ExitCode != 0 || ev.TurnID != last {
				t.Errorf("exited %+v in turn %q", p, ev.TurnID)
			}
			got = append(got, "exited")
		}
	}
	if strings.Join(got, ",") != "started,output,exited" {
		t.Errorf("terminal events %v", got)
	}
}

// TestUnifiedExecSessionOutlivesTurnDiesWithSession: a long command
// started in one turn, polled with an empty write_stdin, is still running
// in the next turn; closing the session kills it, and everything it
// started, and reports the end between turns.
func TestUnifiedExecSessionOutlivesTurnDiesWithSession(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	mgr := unifiedManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	marker := proctest.Marker()
	cmd := "echo started; (exec -a " + marker + " sleep 1000) & exec -a " + marker + " sleep 1000"
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": cmd, "login": false, "yield_time_ms": 250}))),
		callTools(fcall("c2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "yield_time_ms": 5000}))), say("m1", "started"),
		callTools(fcall("c3", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000}))), say("m2", "still there"))
	runTurnOf(t, mgr, rec, info.SessionID, "start")
	runTurnOf(t, mgr, rec, info.SessionID, "poll")
	out := outputs(m.last())
	for _, c := range []string{"c1", "c2", "c3"} {
		if !strings.Contains(out[c], "Process running with session ID 1000") {
			t.Errorf("%s: %q", c, out[c])
		}
	}
	if !strings.Contains(out["c1"]+out["c2"], "started") {
		t.Errorf("no output: %q %q", out["c1"], out["c2"])
	}
	if len(proctest.Find(marker)) == 0 {
		t.Fatal("the command is not running after its turn")
	}
	if err := mgr.Forget(info.SessionID); err != nil {
		t.Fatal(err)
	}
	proctest.Gone(t, marker)
	evs := rec.all()
	last := evs[len(evs)-1]
	if p, ok := last.Payload.(event.TerminalExited); !ok || last.TurnID != "" || p.TerminalID != "1000" {
		t.Errorf("last event %+v in turn %q, want terminalExited between turns", last.Payload, last.TurnID)
	}
}

// TestUnifiedExecEscalatedInputAsks: a command the user let run outside
// the sandbox asks before each input, showing the exact characters;
// under "never" such a command takes no input and nobody is asked.
func TestUnifiedExecEscalatedInputAsks(t *testing.T) {
	m := &scriptedModel{}
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce, AllowAlways, AllowOnce}}
	mgr := unifiedManager(t, m, fe)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": "read a; read b; echo $a$b", "login": false, "yield_time_ms": 250,
		"sandbox_permissions": "require_escalated", "justification": "needs the host", "prefix_rule": []string{"read"}}))),
		callTools(fcall("c2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "a\x1b\n"}))),
		callTools(fcall("c3", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "b\n", "yield_time_ms": 30000}))),
		say("m1", "done"))
	runTurnOf(t, mgr, fe.recorder, info.SessionID, "go")
	if fe.count() != 3 {
		t.Fatalf("asked %d times, want 3 (the command, then each input)", fe.count())
	}
	if r := fe.asked[0]; !strings.Contains(r.Reason, "needs the host (suggested prefix rule, not applied: read)") {
		t.Errorf("escalation: %+v", r)
	}
	for i, want := range []string{`"a\x1b\n"`, `"b\n"`} {
		if r := fe.asked[i+1]; !strings.Contains(r.Reason, want) || r.Kind != ApprovalExec || r.Always != alwaysStdin {
			t.Errorf("input %d: %+v", i, r)
		}
	}
	out := outputs(m.last())
	if !strings.Contains(out["c3"], "Process exited with code 0") || !strings.Contains(out["c3"], "a\x1bb") {
		t.Errorf("typed input: %q", out["c3"])
	}

	// Under "never" with no sandbox at all: the command runs, its input
	// is refused without asking.
	info, err = mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	m.add(callTools(fcall("d1", "exec_command", jsonArgs(t, map[string]any{"cmd": "head -n 1", "login": false, "yield_time_ms": 250}))),
		callTools(fcall("d2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "x\n"}))), say("m2", "done"))
	runTurnOf(t, mgr, fe.recorder, info.SessionID, "go")
	out = outputs(m.last())
	if fe.count() != 3 || !strings.Contains(out["d2"], `"never" lets nothing be typed`) {
		t.Errorf("never: asked %d, %q", fe.count(), out["d2"])
	}
}

// TestUnifiedExecByFamilyAndConfig: Codex's model families get
// exec_command and write_stdin instead of shell, others shell;
// use_unified_exec decides over the family.
func TestUnifiedExecByFamilyAndConfig(t *testing.T) {
	off, on := false, true
	for _, tc := range []struct {
		model   string
		setting *bool
		unified bool
	}{
		{"gpt-5-codex", nil, true},
		{"gpt-5.1", nil, true},
		{"test-model", nil, false},
		{"gpt-4.1", nil, false},
		{"gpt-5-codex", &off, false},
		{"test-model", &on, true},
	} {
		m := &scriptedModel{}
		m.add(say("m1", "hi"))
		rec := newRecorder()
		mgr := managerWith(t, m, rec, func(o *Options) { o.Defaults.ModelName, o.Defaults.UnifiedExec = tc.model, tc.setting })
		info, err := mgr.NewSession(SessionOptions{})
		if err != nil {
			t.Fatal(err)
		}
		runTurnOf(t, mgr, rec, info.SessionID, "hi")
		var names []string
		for _, tl := range m.request(0).Tools {
			names = append(names, tl.Name)
		}
		has := func(n string) bool { return slices.Contains(names, n) }
		if has("exec_command") != tc.unified || has("write_stdin") != tc.unified || has("shell") == tc.unified {
			t.Errorf("%s use_unified_exec=%v: tools %v", tc.model, tc.setting, names)
		}
	}
}

// last is the last request the model got.
func (m *scriptedModel) last() *model.Request {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.requests[len(m.requests)-1]
}
