package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/proctest"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// modes lists the modeChanged events, in order.
func (r *recorder) modes() []string {
	var out []string
	for _, ev := range r.all() {
		if p, ok := ev.Payload.(event.ModeChanged); ok {
			out = append(out, ev.TurnID+":"+p.Mode)
		}
	}
	return out
}

// results are the toolResult events by call id.
func (r *recorder) results() map[string]event.ToolResult {
	out := map[string]event.ToolResult{}
	for _, ev := range r.all() {
		if p, ok := ev.Payload.(event.ToolResult); ok {
			out[p.CallID] = p
		}
	}
	return out
}

func (r *recorder) turnStarted(turnID string) event.TurnStarted {
	for _, ev := range r.all() {
		if p, ok := ev.Payload.(event.TurnStarted); ok && ev.TurnID == turnID {
			return p
		}
	}
	return event.TurnStarted{}
}

// planSteps are a model's turn in plan mode: it tries to write a file
// two ways, makes its checklist and answers with the plan.
func planSteps() []func(context.Context, *model.Request, func(model.Event)) (*model.Response, error) {
	patch := model.Item{Type: model.ItemCustomToolCall, ID: "ct_p", CallID: "patch", Name: "apply_patch",
		Input: "*** Begin Patch\n*** Add File: patched.txt\n+x\n*** End Patch\n"}
	return []func(context.Context, *model.Request, func(model.Event)) (*model.Response, error){
		callTools(fcall("write", "write_file", `{"file_path":"written.txt","content":"x"}`), patch),
		callTools(fcall("plan", "update_plan", `{"plan":[{"step":"write the files","status":"pending"}]}`)),
		say("m_plan", "Plan: write the files."),
	}
}

// TestPlanModeRefusesChangesWithoutAsking: in plan mode write_file and
// apply_patch are refused with a reason the model reads, nobody is asked,
// nothing is written; the model gets plan mode's instructions and its
// checklist goes out as a plan event.
func TestPlanModeRefusesChangesWithoutAsking(t *testing.T) {
	m := &scriptedModel{}
	m.add(planSteps()...)
	fe := &askingFrontend{recorder: newRecorder()}
	mgr := newTestManager(t, m, fe)
	info, err := mgr.NewSession(SessionOptions{Mode: ModePlan, ApprovalPolicy: policy.Untrusted})
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode != ModePlan {
		t.Fatalf("session info mode %q, want plan", info.Mode)
	}
	id, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "add the files"}))
	if err != nil {
		t.Fatal(err)
	}
	if end := fe.wait(t); end.Status != event.StatusCompleted {
		t.Fatalf("turn ended %+v", end)
	}
	res := fe.results()
	for _, call := range []string{"write", "patch"} {
		r := res[call]
		if r.Status != event.ToolRejected || !strings.Contains(r.Output, "plan mode is on") || !strings.Contains(r.Output, "approves the plan") {
			t.Errorf("%s: %+v, want rejected because plan mode is on", call, r)
		}
	}
	if r := res["plan"]; r.Status != event.ToolCompleted {
		t.Errorf("update_plan: %+v, want completed", r)
	}
	if fe.count() != 0 {
		t.Errorf("the user was asked %d times", fe.count())
	}
	for _, f := range []string{"written.txt", "patched.txt"} {
		if _, err := os.Stat(filepath.Join(info.Cwd, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: %v, want it absent", f, err)
		}
	}
	if req := m.request(0); !strings.HasSuffix(req.Instructions, planInstructions) || !strings.HasPrefix(req.Instructions, baseInstructions) {
		t.Error("the request in plan mode lacks plan mode's instructions")
	}
	if st := fe.turnStarted(id); st.Mode != "plan" {
		t.Errorf("turnStarted %+v, want mode plan", st)
	}
}

// TestPlanApproverRefusesWhatLeavesTheReadOnlySandbox: in plan mode
// commands run sandboxed, read-only, even in a session without a sandbox;
// escalations, reruns without the sandbox, MCP tools not marked
// read-only (even auto-approved) and input for commands outside the
// sandbox are refused without asking.
func TestPlanApproverRefusesWhatLeavesTheReadOnlySandbox(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowOnce}}
	tr, ctx := testTurn(t, fe, policy.OnRequest, policy.DangerFullAccess)
	tr.plan = true
	a := turnApprover{tr}
	d, err := a.Exec(ctx, tools.ExecRequest{Command: []string{"touch", "x"}, Cwd: tr.s.info.Cwd})
	if err != nil || !d.Allowed || !d.Sandboxed {
		t.Errorf("a command in plan mode: %+v %v, want it run in the sandbox", d, err)
	}
	refused := func(what string, d tools.Decision, err error) {
		t.Helper()
		if err != nil || d.Allowed || !strings.Contains(d.Reason, "plan mode is on") {
			t.Errorf("%s: %+v %v, want refused because plan mode is on", what, d, err)
		}
	}
	ed, err := a.Exec(ctx, tools.ExecRequest{Command: []string{"touch", "x"}, Cwd: tr.s.info.Cwd, Escalated: true, Justification: "write"})
	refused("an escalation", ed.Decision, err)
	d2, err := a.RetryUnsandboxed(ctx, tools.ExecRequest{Command: []string{"touch", "x"}, Cwd: tr.s.info.Cwd}, "Permission denied")
	refused("a rerun without the sandbox", d2, err)
	d2, err = a.Tool(ctx, tools.ToolRequest{Server: "srv", Tool: "deploy", AutoApprove: true})
	refused("an MCP tool not marked read-only", d2, err)
	d2, err = a.Input(ctx, tools.InputRequest{SessionID: 1000, Command: []string{"python3"}, Chars: "x"})
	refused("input for a command outside the sandbox", d2, err)
	d2, err = a.Patch(ctx, tools.PatchRequest{Paths: []string{filepath.Join(tr.s.info.Cwd, "a")}})
	refused("a patch", d2, err)
	if d2, err = a.Tool(ctx, tools.ToolRequest{Server: "srv", Tool: "search", ReadOnly: true}); err != nil || !d2.Allowed {
		t.Errorf("a read-only MCP tool: %+v %v, want it run", d2, err)
	}
	if fe.count() != 0 {
		t.Errorf("the user was asked %d times", fe.count())
	}
}

// mcpTool is a tool of an MCP server, read-only or not.
type mcpTool struct{ readOnly bool }

func (m mcpTool) Spec() tools.Spec {
	return tools.Spec{Type: tools.Function, Name: "srv__deploy", Server: "srv", ServerTool: "deploy", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (mcpTool) Kind() event.ToolKind        { return event.KindOther }
func (m mcpTool) Mutating(*tools.Call) bool { return !m.readOnly }
func (mcpTool) Title(*tools.Call) string    { return "deploy" }
func (mcpTool) Handle(context.Context, *tools.Env, *tools.Call) (tools.Output, error) {
	return tools.Output{Text: "ran"}, nil
}

// TestPlanGate: what the plan mode hook lets through.
func TestPlanGate(t *testing.T) {
	env := &tools.Env{Terminals: tools.NewTerminals(nil)}
	t.Cleanup(env.Terminals.Close)
	call := func(name, args string) *tools.Call {
		return &tools.Call{CallID: "c", Name: name, Type: tools.Function, Arguments: json.RawMessage(args)}
	}
	for _, c := range []struct {
		h       tools.Handler
		call    *tools.Call
		refused string
	}{
		{tools.WriteFile{}, call("write_file", `{"file_path":"a","content":"x"}`), "write_file changes files"},
		{tools.ApplyPatch{}, &tools.Call{Name: "apply_patch", Type: tools.Custom, Input: "*** Begin Patch"}, "apply_patch changes files"},
		{mcpTool{}, call("srv__deploy", `{}`), "deploy of the MCP server srv is not marked read-only"},
		{mcpTool{readOnly: true}, call("srv__deploy", `{}`), ""},
		{tools.WriteStdin{}, call("write_stdin", `{"session_id":1000,"chars":"rm -rf x\n"}`), "command session 1000 was not started in plan mode"},
		{tools.WriteStdin{}, call("write_stdin", `{"session_id":1000}`), ""},
		{tools.ReadFile{}, call("read_file", `{"file_path":"a"}`), ""},
		{tools.Shell{}, call("shell", `{"command":["ls"]}`), ""},
	} {
		got := planRefuses(env, c.h, c.call)
		if (got == "") != (c.refused == "") || !strings.Contains(got, c.refused) {
			t.Errorf("%s %s: refused %q, want %q", c.call.Name, c.call.Arguments, got, c.refused)
		}
	}
}

// planned runs a turn in plan mode to completion in a new session of mgr
// and returns the session's id.
func planned(t *testing.T, mgr *Manager, rec *recorder) string {
	t.Helper()
	info, err := mgr.NewSession(SessionOptions{Mode: ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.ApprovePlan(info.SessionID); !errors.Is(err, ErrNoPlan) {
		t.Fatalf("approving before any plan: %v, want ErrNoPlan", err)
	}
	if _, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "plan it"})); err != nil {
		t.Fatal(err)
	}
	if end := rec.wait(t); end.Status != event.StatusCompleted {
		t.Fatalf("the plan turn ended %+v", end)
	}
	// The session notes the plan as the turn's end is settled, just
	// after turnCompleted is sent.
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if kept, err := mgr.Record(info.SessionID); err == nil && kept.Planned {
			break
		}
	}
	return info.SessionID
}

// TestApprovePlanCarriesItOut: approving switches the session back to
// the default mode (modeChanged) and starts a turn that carries out the
// plan, with the usual instructions; the session is not in plan mode
// after, so approving again is refused, and a default session has
// nothing to approve.
func TestApprovePlanCarriesItOut(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("m1", "Plan: one step."), say("m2", "Done."))
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	sid := planned(t, mgr, rec)
	sub, err := mgr.ApprovePlan(sid)
	if err != nil || sub.Queued || sub.TurnID == "" {
		t.Fatalf("approve: %+v %v, want a started turn", sub, err)
	}
	if end := rec.wait(t); end.Status != event.StatusCompleted {
		t.Fatalf("the approved turn ended %+v", end)
	}
	req := m.request(1)
	if req.Instructions != baseInstructions || lastUser(req) != ApprovePrompt {
		t.Errorf("the approved turn's request: instructions changed %v, last user message %q", req.Instructions != baseInstructions, lastUser(req))
	}
	if got := rec.modes(); len(got) != 1 || got[0] != ":default" {
		t.Errorf("modeChanged events %v, want one, default, between turns", got)
	}
	if st := rec.turnStarted(sub.TurnID); st.Mode != "" || st.Prompt != ApprovePrompt {
		t.Errorf("the approved turn started %+v", st)
	}
	if _, err := mgr.ApprovePlan(sid); !errors.Is(err, ErrNotPlanning) {
		t.Errorf("approving again: %v, want ErrNotPlanning", err)
	}
	if rc, _ := mgr.Record(sid); rc.Info.Mode != ModeDefault || rc.Planned {
		t.Errorf("record after approval: mode %q planned %v", rc.Info.Mode, rc.Planned)
	}
}

// TestApprovePlanQueuesBehindRunningTurn: approved while a turn in plan
// mode runs, the approval waits in the queue with the mode it switches
// to; the session stays in plan mode until its turn starts; approving
// again answers the same turn, and it cannot be sent into the running
// turn.
func TestApprovePlanQueuesBehindRunningTurn(t *testing.T) {
	m := &scriptedModel{}
	entered, release := make(chan struct{}), make(chan struct{})
	m.add(held(entered, release, say("m1", "Plan.")), say("m2", "Done."))
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{Mode: ModePlan})
	if err != nil {
		t.Fatal(err)
	}
	first, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "plan it"}))
	if err != nil {
		t.Fatal(err)
	}
	waitClosed(t, entered, "the plan turn's request")
	sub, err := mgr.ApprovePlan(info.SessionID)
	if err != nil || !sub.Queued {
		t.Fatalf("approve while planning: %+v %v, want queued", sub, err)
	}
	again, err := mgr.ApprovePlan(info.SessionID)
	if err != nil || again.TurnID != sub.TurnID {
		t.Errorf("approving again: %+v %v, want the same turn %s", again, err, sub.TurnID)
	}
	if q := rec.lastQueue(t); len(q.Items) != 1 || q.Items[0].Mode != "default" || q.Items[0].Prompt != ApprovePrompt {
		t.Errorf("queue %+v, want the approval with mode default", q)
	}
	if _, err := mgr.Steer(info.SessionID, TurnInput{}, sub.TurnID); !errors.Is(err, ErrModeSwitchSteer) {
		t.Errorf("sending the approval into the turn: %v, want ErrModeSwitchSteer", err)
	}
	if rc, _ := mgr.Record(info.SessionID); rc.Info.Mode != ModePlan {
		t.Errorf("mode while the approval waits: %q, want plan", rc.Info.Mode)
	}
	close(release)
	rec.wait(t)
	if end := rec.wait(t); end.Status != event.StatusCompleted {
		t.Fatalf("the approved turn ended %+v", end)
	}
	if got := rec.started(); len(got) != 2 || got[0] != first+":plan it" || got[1] != sub.TurnID+":"+ApprovePrompt {
		t.Errorf("turns %v", got)
	}
	if got := rec.modes(); len(got) != 1 || got[0] != ":default" {
		t.Errorf("modeChanged events %v, want default once, when the approval started", got)
	}
	if m.request(1).Instructions != baseInstructions {
		t.Error("the approved turn ran with plan mode's instructions")
	}
}

// TestSetModeAppliesFromTheNextTurn: a running turn keeps its mode; the
// prompt queued behind it runs in the new one; modeChanged carries the
// running turn's id; an unknown mode changes nothing.
func TestSetModeAppliesFromTheNextTurn(t *testing.T) {
	mgr, m, rec, sid, first, release := busySession(t, say("m2", "Plan."))
	if err := mgr.SetMode(sid, "yolo"); !errors.Is(err, ErrUnknownMode) {
		t.Errorf("unknown mode: %v", err)
	}
	if err := mgr.SetMode(sid, ModePlan); err != nil {
		t.Fatal(err)
	}
	if err := mgr.SetMode(sid, ModePlan); err != nil {
		t.Fatal(err)
	}
	second := submit(t, mgr, sid, "second")
	close(release)
	rec.wait(t)
	rec.wait(t)
	if got := rec.modes(); len(got) != 1 || got[0] != first+":plan" {
		t.Errorf("modeChanged events %v, want plan once, during %s", got, first)
	}
	if m.request(0).Instructions != baseInstructions || !strings.HasSuffix(m.request(1).Instructions, planInstructions) {
		t.Error("the running turn changed mode, or the next did not")
	}
	if st := rec.turnStarted(second.TurnID); st.Mode != "plan" {
		t.Errorf("the queued turn started %+v, want plan mode", st)
	}
	if _, err := mgr.ApprovePlan(sid); err != nil {
		t.Errorf("approve after a completed turn in plan mode: %v", err)
	}
}

// TestRestoreKeepsModeAndPlan: a session restored from its record is in
// the mode it had, with its plan still to approve.
func TestRestoreKeepsModeAndPlan(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("m1", "Plan."))
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	sid := planned(t, mgr, rec)
	kept, err := mgr.Record(sid)
	if err != nil || kept.Info.Mode != ModePlan || !kept.Planned {
		t.Fatalf("record: mode %q planned %v %v", kept.Info.Mode, kept.Planned, err)
	}
	m2 := &scriptedModel{}
	m2.add(say("m2", "Done."))
	rec2 := newRecorder()
	mgr2 := newTestManager(t, m2, rec2)
	info, err := mgr2.Restore(kept)
	if err != nil || info.Mode != ModePlan {
		t.Fatalf("restored %+v %v, want plan mode", info, err)
	}
	if _, err := mgr2.ApprovePlan(sid); err != nil {
		t.Fatalf("approve after restore: %v", err)
	}
	if end := rec2.wait(t); end.Status != event.StatusCompleted {
		t.Fatalf("the approved turn ended %+v", end)
	}
}

// TestPlanModeRefusesInputToACommandStartedBefore: a command session
// started in the default mode keeps running into plan mode; characters
// for it are refused there without asking, a poll still reads it.
func TestPlanModeRefusesInputToACommandStartedBefore(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	mgr := unifiedManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.WorkspaceWrite})
	if err != nil {
		t.Fatal(err)
	}
	marker := proctest.Marker()
	m.add(callTools(fcall("c1", "exec_command", jsonArgs(t, map[string]any{"cmd": "exec -a " + marker + " cat", "login": false, "yield_time_ms": 250}))), say("m1", "started"),
		callTools(fcall("c2", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "chars": "touch x\n"})),
			fcall("c3", "write_stdin", jsonArgs(t, map[string]any{"session_id": 1000, "yield_time_ms": 250}))), say("m2", "planned"))
	runTurnOf(t, mgr, rec, info.SessionID, "start")
	if err := mgr.SetMode(info.SessionID, ModePlan); err != nil {
		t.Fatal(err)
	}
	runTurnOf(t, mgr, rec, info.SessionID, "plan")
	out := outputs(m.last())
	if !strings.Contains(out["c2"], "was not started in plan mode") {
		t.Errorf("input in plan mode: %q", out["c2"])
	}
	if !strings.Contains(out["c3"], "Process running with session ID 1000") {
		t.Errorf("a poll in plan mode: %q", out["c3"])
	}
	if err := mgr.Forget(info.SessionID); err != nil {
		t.Fatal(err)
	}
	proctest.Gone(t, marker)
}
