package agent

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// waitTerminals waits until session id lists n command sessions.
func waitTerminals(t *testing.T, mgr *Manager, id string, n int) []TerminalInfo {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		list, err := mgr.ListTerminals(id)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) >= n {
			return list
		}
		if time.Now().After(deadline) {
			t.Fatalf("session %s lists %+v, want %d command sessions", id, list, n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// userNotes are the notes about command sessions the request carries.
func userNotes(req *model.Request) string {
	var b strings.Builder
	for _, it := range req.Input {
		if it.Type == model.ItemMessage && it.Role == model.RoleUser && strings.HasPrefix(it.Text, terminalNoteHeader) {
			b.WriteString(it.Text)
		}
	}
	return b.String()
}

// TestKillTerminalByTheUser: the user kills a command session the
// agent started in an earlier turn: its whole process tree goes, the
// listing shows it ended with its exit code and why, acting on it again
// is an error, and the model learns it at its next request and in its
// next write_stdin.
func TestKillTerminalByTheUser(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	mgr := unifiedManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	marker := proctest.Marker()
	cmd := "(exec -a " + marker + " sleep 1000) & exec -a " + marker + " sleep 1000"
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": cmd, "login": false, "yield_time_ms": 250}))), say("m1", "started"),
		callTools(fcall("c2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000}))), say("m2", "seen"))
	runTurnOf(t, mgr, rec, info.SessionID, "start")
	list := waitTerminals(t, mgr, info.SessionID, 1)
	if ti := list[0]; ti.ID != 1000 || !ti.Running || !ti.Sandboxed || ti.Mode != policy.WorkspaceWrite || ti.Command[2] != cmd {
		t.Fatalf("listed %+v", ti)
	}
	if len(proctest.Find(marker)) == 0 {
		t.Fatal("the command does not run")
	}
	if err := mgr.KillTerminal(info.SessionID, 1000); err != nil {
		t.Fatal(err)
	}
	proctest.Gone(t, marker)
	evs := rec.all()
	if p, ok := evs[len(evs)-1].Payload.(event.TerminalExited); !ok || p.TerminalID != "1000" || evs[len(evs)-1].TurnID != "" {
		t.Errorf("last event %+v, want terminalExited between turns", evs[len(evs)-1])
	}
	list, _ = mgr.ListTerminals(info.SessionID)
	if ti := list[0]; ti.Running || ti.ExitCode == 0 || ti.Killed != killedByUser {
		t.Errorf("after the kill: %+v", ti)
	}
	if err := mgr.KillTerminal(info.SessionID, 1000); !errors.Is(err, ErrTerminalEnded) {
		t.Errorf("killed again: %v", err)
	}
	if err := mgr.WriteTerminal(info.SessionID, 1000, "x"); !errors.Is(err, ErrTerminalEnded) {
		t.Errorf("written after the end: %v", err)
	}
	if err := mgr.KillTerminal(info.SessionID, 1001); !errors.Is(err, ErrUnknownTerminal) {
		t.Errorf("unknown terminal: %v", err)
	}
	if _, err := mgr.ListTerminals("s-nope"); !errors.Is(err, ErrUnknownSession) {
		t.Errorf("unknown session: %v", err)
	}

	runTurnOf(t, mgr, rec, info.SessionID, "check")
	if note := userNotes(m.last()); !strings.Contains(note, "The user killed command session 1000") {
		t.Errorf("the model was not told: %q", note)
	}
	if out := outputs(m.last())["c2"]; !strings.Contains(out, "Process exited with code") || !strings.Contains(out, "agent-ls killed this command session at the user's request") {
		t.Errorf("write_stdin after the kill: %q", out)
	}
}

// TestWriteTerminalAsksNobody: the user types into a command session
// that runs outside the sandbox without being asked (the model's input
// there is asked each time), and the model sees what it did.
func TestWriteTerminalAsksNobody(t *testing.T) {
	m := &scriptedModel{}
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
	mgr := unifiedManager(t, m, fe)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": "read -p 'Continue? ' a; echo answer=$a", "login": false, "tty": true,
		"yield_time_ms": 500, "sandbox_permissions": "require_escalated", "justification": "asks"}))), say("m1", "waiting"),
		callTools(fcall("c2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "yield_time_ms": 30000}))), say("m2", "done"))
	runTurnOf(t, mgr, fe.recorder, info.SessionID, "ask")
	if err := mgr.WriteTerminal(info.SessionID, 1000, "yes\r"); err != nil {
		t.Fatal(err)
	}
	runTurnOf(t, mgr, fe.recorder, info.SessionID, "check")
	if fe.count() != 1 {
		t.Errorf("asked %d times, want once (the escalation only)", fe.count())
	}
	if out := outputs(m.last())["c2"]; !strings.Contains(out, "answer=yes") || !strings.Contains(out, "Process exited with code 0") {
		t.Errorf("the model does not see the answer: %q", out)
	}
}

// TestInterruptKeepsTerminalsAndSaysSo: an interrupt stops the turn, not
// its command sessions, and the next request tells the model which run.
func TestInterruptKeepsTerminalsAndSaysSo(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	mgr := unifiedManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": "sleep 1000", "login": false, "yield_time_ms": 30000}))),
		say("m1", "after"))
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "start"}); err != nil {
		t.Fatal(err)
	}
	waitTerminals(t, mgr, info.SessionID, 1)
	if err := mgr.Interrupt(info.SessionID, ""); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusInterrupted {
		t.Fatalf("turn ended %+v", done)
	}
	if list, _ := mgr.ListTerminals(info.SessionID); !list[0].Running {
		t.Fatalf("the interrupt ended the command session: %+v", list)
	}
	runTurnOf(t, mgr, rec, info.SessionID, "next")
	note := userNotes(m.last())
	if !strings.Contains(note, "interrupted") || !strings.Contains(note, "command session 1000 still runs") || !strings.Contains(note, "write_stdin") {
		t.Errorf("the model was not told: %q", note)
	}
}

// TestStricterPolicyKillsWiderTerminals: new defaults that allow less
// kill at once the command sessions that run with more (the network, a
// command outside the sandbox under "never") and keep the others; the
// model learns which and why.
func TestStricterPolicyKillsWiderTerminals(t *testing.T) {
	m := &scriptedModel{}
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
	mgr := managerWith(t, m, fe, func(o *Options) {
		on := true
		o.Defaults.UnifiedExec, o.Defaults.NetworkAccess = &on, true
	})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	netMarker, hostMarker := proctest.Marker(), proctest.Marker()
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": "exec -a " + netMarker + " sleep 1000", "login": false, "yield_time_ms": 250}))),
		callTools(fcall("c2", "exec_command", jsonArgs(t, map[string]any{"cmd": "exec -a " + hostMarker + " sleep 1000", "login": false, "yield_time_ms": 250,
			"sandbox_permissions": "require_escalated", "justification": "host"}))),
		say("m1", "started"))
	runTurnOf(t, mgr, fe.recorder, info.SessionID, "start")
	list := waitTerminals(t, mgr, info.SessionID, 2)
	if !list[0].Network || !list[0].Sandboxed || list[1].Sandboxed {
		t.Fatalf("listed %+v", list)
	}

	// The network goes off: the sandboxed command that had it goes, the
	// escalated one (approved by the user) stays.
	if err := mgr.UpdateDefaults(func(d *Defaults) { d.NetworkAccess = false }); err != nil {
		t.Fatal(err)
	}
	proctest.Gone(t, netMarker)
	list, _ = mgr.ListTerminals(info.SessionID)
	if list[0].Running || !strings.Contains(list[0].Killed, "policy") || !list[1].Running {
		t.Fatalf("after the network went off: %+v", list)
	}
	// "never" lets nothing out of the sandbox: the escalated one goes.
	if err := mgr.UpdateDefaults(func(d *Defaults) { d.ApprovalPolicy = policy.Never }); err != nil {
		t.Fatal(err)
	}
	proctest.Gone(t, hostMarker)
	m.add(say("m2", "ok"))
	runTurnOf(t, mgr, fe.recorder, info.SessionID, "next")
	note := userNotes(m.last())
	for _, want := range []string{"1000: it could use the network", "1001: it ran outside the sandbox, and the approval policy is now never"} {
		if !strings.Contains(note, want) {
			t.Errorf("the model was not told %q: %q", want, note)
		}
	}
}

// TestAllowanceExceeds: what each change of policy ends.
func TestAllowanceExceeds(t *testing.T) {
	ww, ro, full := policy.WorkspaceWrite, policy.ReadOnly, policy.DangerFullAccess
	for _, c := range []struct {
		a    allowance
		ti   TerminalInfo
		kill bool
	}{
		{allowance{mode: ww, approval: policy.OnRequest}, TerminalInfo{Mode: full}, true},
		{allowance{mode: full, approval: policy.Never}, TerminalInfo{Mode: full}, false},
		{allowance{mode: ww, approval: policy.OnRequest}, TerminalInfo{Mode: full, Sandboxed: true}, true},
		{allowance{mode: ww, approval: policy.OnRequest}, TerminalInfo{Mode: ww}, false},
		{allowance{mode: ro, approval: policy.OnRequest}, TerminalInfo{Mode: ww}, true},
		{allowance{mode: ww, approval: policy.Never}, TerminalInfo{Mode: ww}, true},
		{allowance{mode: ro, approval: policy.OnRequest}, TerminalInfo{Mode: ww, Sandboxed: true}, true},
		{allowance{mode: ro, approval: policy.OnRequest}, TerminalInfo{Mode: ro, Sandboxed: true}, false},
		{allowance{mode: ww, approval: policy.Never}, TerminalInfo{Mode: ww, Sandboxed: true}, false},
		{allowance{mode: ww, network: false}, TerminalInfo{Mode: ww, Sandboxed: true, Network: true}, true},
		{allowance{mode: ww, network: true}, TerminalInfo{Mode: ww, Sandboxed: true, Network: true}, false},
	} {
		if got := c.a.exceeds(c.ti) != ""; got != c.kill {
			t.Errorf("%+v over %+v: kill %v, want %v", c.a, c.ti, got, c.kill)
		}
	}
}

// TestTerminalOfAnotherSession: the user's kill and input name a
// command session of one session; the same id in another session is
// another command, and an id only another session has is unknown.
func TestTerminalOfAnotherSession(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	mgr := unifiedManager(t, m, rec)
	a, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	b, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	ma, mb := proctest.Marker(), proctest.Marker()
	run := func(id, marker string) model.Item {
		return fcall(id, "exec_command", jsonArgs(t, map[string]any{"cmd": "exec -a " + marker + " sleep 1000", "login": false, "yield_time_ms": 250}))
	}
	m.add(callTools(run("c1", ma), run("c2", ma)), say("m1", "two"))
	runTurnOf(t, mgr, rec, a.SessionID, "start two")
	m.add(callTools(run("c3", mb)), say("m2", "one"))
	runTurnOf(t, mgr, rec, b.SessionID, "start one")
	waitTerminals(t, mgr, a.SessionID, 2)
	waitTerminals(t, mgr, b.SessionID, 1)
	if err := mgr.KillTerminal(b.SessionID, 1001); !errors.Is(err, ErrUnknownTerminal) {
		t.Errorf("killing session a's 1001 through session b: %v", err)
	}
	if err := mgr.WriteTerminal(b.SessionID, 1001, "x\n"); !errors.Is(err, ErrUnknownTerminal) {
		t.Errorf("typing into session a's 1001 through session b: %v", err)
	}
	if err := mgr.KillTerminal(b.SessionID, 1000); err != nil {
		t.Fatal(err)
	}
	proctest.Gone(t, mb)
	if len(proctest.Find(ma)) == 0 {
		t.Error("session b's kill ended session a's commands")
	}
	if list, _ := mgr.ListTerminals(a.SessionID); len(list) != 2 || !list[0].Running || !list[1].Running {
		t.Errorf("session a: %+v", list)
	}
}

// TestUnattendedEscalatedTerminalTakesNoInput: in an unattended run a
// command that runs outside the sandbox (danger-full-access) takes no
// input from the model, and nobody is asked; its sandboxed neighbour
// does.
func TestUnattendedEscalatedTerminalTakesNoInput(t *testing.T) {
	m := &scriptedModel{}
	fe := &askingFrontend{recorder: newRecorder()}
	mgr := managerWith(t, m, fe, func(o *Options) {
		on := true
		o.Unattended, o.Defaults.UnifiedExec = true, &on
	})
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.OnRequest, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": "head -n 1", "login": false, "yield_time_ms": 250}))),
		callTools(fcall("c2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "typed\n", "yield_time_ms": 1000}))), say("m1", "done"))
	runTurnOf(t, mgr, fe.recorder, info.SessionID, "go")
	out := outputs(m.last())
	if fe.count() != 0 || !strings.Contains(out["c2"], "unattended") || strings.Contains(out["c2"], "typed") {
		t.Errorf("asked %d times; write_stdin: %q", fe.count(), out["c2"])
	}
	if list, _ := mgr.ListTerminals(info.SessionID); len(list) != 1 || !list[0].Running || list[0].Sandboxed {
		t.Errorf("listed %+v", list)
	}
}

// TestHugeInputOutsideTheSandboxRefused: input for a command outside the
// sandbox is shown whole when the user is asked; more than one question
// shows is refused without asking, saying how to send it instead.
func TestHugeInputOutsideTheSandboxRefused(t *testing.T) {
	m := &scriptedModel{}
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
	mgr := unifiedManager(t, m, fe)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.OnRequest, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": "head -c 1 >/dev/null", "login": false, "yield_time_ms": 250}))),
		callTools(fcall("c2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": strings.Repeat("x", maxAskedInput+1)}))),
		callTools(fcall("c3", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "y", "yield_time_ms": 30000}))), say("m1", "done"))
	runTurnOf(t, mgr, fe.recorder, info.SessionID, "go")
	out := outputs(m.last())
	if !strings.Contains(out["c2"], "refused") || !strings.Contains(out["c2"], "in parts") {
		t.Errorf("huge input: %q", out["c2"])
	}
	if fe.count() != 1 || !strings.Contains(fe.asked[0].Reason, `"y"`) || !strings.Contains(out["c3"], "Process exited with code 0") {
		t.Errorf("asked %d times (%+v); small input: %q", fe.count(), fe.asked, out["c3"])
	}
}
