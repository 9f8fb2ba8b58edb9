package agent

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// noSandbox is the injected reason why no sandbox confines commands: what
// a non-Linux system or a build without cgo reports, faked here so the
// tests run on any machine.
const noSandbox = "injected: no sandbox in this test"

// noSandboxManager is a manager whose sandbox is unavailable (why != "")
// or available (why == "").
func noSandboxManager(t *testing.T, m model.Client, fe Frontend, why string, unattended bool) *Manager {
	t.Helper()
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "test-model"}, Model: m, Frontend: fe, Tools: reg, Cwd: t.TempDir(),
		Unattended: unattended, SandboxUnavailable: func() string { return why }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	return mgr
}

func noSandboxTurn(t *testing.T, fe Frontend, ap policy.ApprovalPolicy, mode policy.SandboxMode, why string, unattended bool) (turnApprover, context.Context) {
	t.Helper()
	tr, ctx := turnOf(t, noSandboxManager(t, &scriptedModel{}, fe, why, unattended), ap, mode)
	return turnApprover{tr}, ctx
}

// TestNoSandboxEveryCommandAsks: without a sandbox every command asks
// under on-request, untrusted and on-failure, a known-safe one too, and
// runs unconfined only once allowed; with the sandbox the same commands
// run sandboxed without asking (untrusted asks for go test there too).
func TestNoSandboxEveryCommandAsks(t *testing.T) {
	safe, build := []string{"ls", "-la"}, []string{"go", "test", "./..."}
	for _, ap := range []policy.ApprovalPolicy{policy.OnRequest, policy.Untrusted, policy.OnFailure} {
		for _, argv := range [][]string{safe, build} {
			fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce, RejectOnce}}
			a, ctx := noSandboxTurn(t, fe, ap, policy.WorkspaceWrite, noSandbox, false)
			req := tools.ExecRequest{Command: argv, Cwd: a.t.s.info.Cwd}
			d, err := a.Exec(ctx, req)
			if err != nil || !d.Allowed || d.Sandboxed || fe.count() != 1 {
				t.Fatalf("%s %v: %+v %v, asked %d; want asked once, allowed, unsandboxed", ap, argv, d, err, fe.count())
			}
			if r := fe.asked[0].Reason; !strings.Contains(r, "No sandbox is available here ("+noSandbox+")") || !strings.Contains(r, "unconfined") {
				t.Errorf("%s %v: reason %q", ap, argv, r)
			}
			if d, _ := a.Exec(ctx, req); d.Allowed || fe.count() != 2 {
				t.Errorf("%s %v: a rejected second run ran (%+v) or was not asked (%d)", ap, argv, d, fe.count())
			}

			fe = &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
			a, ctx = noSandboxTurn(t, fe, ap, policy.WorkspaceWrite, "", false)
			d, _ = a.Exec(ctx, tools.ExecRequest{Command: argv, Cwd: a.t.s.info.Cwd})
			wantAsk := ap == policy.Untrusted && argv[0] == "go"
			if !d.Allowed || !d.Sandboxed || (fe.count() == 1) != wantAsk {
				t.Errorf("%s %v with a sandbox: %+v, asked %d", ap, argv, d, fe.count())
			}
		}
	}
}

// TestNoSandboxNeverRefuses: under "never" nobody can approve, so without
// a sandbox no command runs, and the output says why.
func TestNoSandboxNeverRefuses(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
	a, ctx := noSandboxTurn(t, fe, policy.Never, policy.WorkspaceWrite, noSandbox, false)
	d, err := a.Exec(ctx, tools.ExecRequest{Command: []string{"ls"}, Cwd: a.t.s.info.Cwd})
	if err != nil || d.Allowed || fe.count() != 0 {
		t.Fatalf("%+v %v, asked %d; want refused without asking", d, err, fe.count())
	}
	for _, want := range []string{"refused", noSandbox, `"never"`} {
		if !strings.Contains(d.Reason, want) {
			t.Errorf("reason %q lacks %q", d.Reason, want)
		}
	}
	if got := decisions(fe.recorder); len(got) != 1 || got[0] != AutoReject {
		t.Errorf("approval events %v", got)
	}
}

// TestNoSandboxUnattendedRefuses: exec --yes answers for the user only
// what stays in the sandbox, so without one it refuses every command;
// --dangerously-bypass-sandbox (danger-full-access, not unattended) runs
// them.
func TestNoSandboxUnattendedRefuses(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
	a, ctx := noSandboxTurn(t, fe, policy.OnRequest, policy.WorkspaceWrite, noSandbox, true)
	d, _ := a.Exec(ctx, tools.ExecRequest{Command: []string{"ls"}, Cwd: a.t.s.info.Cwd})
	if d.Allowed || fe.count() != 0 || !strings.Contains(d.Reason, "unattended") || !strings.Contains(d.Reason, noSandbox) {
		t.Errorf("unattended: %+v, asked %d", d, fe.count())
	}

	fe = &askingFrontend{recorder: newRecorder()}
	a, ctx = noSandboxTurn(t, fe, policy.OnRequest, policy.DangerFullAccess, noSandbox, false)
	d, _ = a.Exec(ctx, tools.ExecRequest{Command: []string{"ls"}, Cwd: a.t.s.info.Cwd})
	if !d.Allowed || d.Sandboxed || fe.count() != 0 {
		t.Errorf("bypass: %+v, asked %d; want run unsandboxed without asking", d, fe.count())
	}
}

// TestNoSandboxTurnTellsTheModel: the environment context says there is
// no sandbox, and a refused command's output says why, through a whole
// turn.
func TestNoSandboxTurnTellsTheModel(t *testing.T) {
	m := &scriptedModel{}
	m.add(callTools(fcall("c1", "shell", `{"command":["ls"]}`)), say("msg_2", "ok"))
	rec := newRecorder()
	mgr := noSandboxManager(t, m, rec, noSandbox, false)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "list"})); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	var context, output string
	for _, it := range m.request(1).Input {
		if strings.Contains(it.Text, "<environment_context>") {
			context = it.Text
		}
		if it.Type == model.ItemFunctionCallOutput && it.CallID == "c1" {
			output = it.Output
		}
	}
	if !strings.Contains(context, "<sandbox>No sandbox is available here: "+noSandbox) || !strings.Contains(context, "no command runs") {
		t.Errorf("environment context:\n%s", context)
	}
	if !strings.Contains(output, "refused: no sandbox is available here ("+noSandbox+")") {
		t.Errorf("shell output %q", output)
	}
}

// TestNoSandboxContextAsks: where the user can approve, the environment
// context says every command asks.
func TestNoSandboxContextAsks(t *testing.T) {
	mgr := noSandboxManager(t, &scriptedModel{}, newRecorder(), noSandbox, false)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.OnRequest})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := mgr.session(info.SessionID)
	if ctx := s.environmentContext(); !strings.Contains(ctx, noSandbox) || !strings.Contains(ctx, "runs only after the user approves it") {
		t.Errorf("environment context:\n%s", ctx)
	}
	with := noSandboxManager(t, &scriptedModel{}, newRecorder(), "", false)
	info, _ = with.NewSession(SessionOptions{})
	s, _ = with.session(info.SessionID)
	if ctx := s.environmentContext(); strings.Contains(ctx, "No sandbox") {
		t.Errorf("with a sandbox the context says there is none:\n%s", ctx)
	}
}
