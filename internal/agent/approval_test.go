package agent

import (
	"context"
	"errors"
	"github.com/agent-ls/agent-ls/internal/policy"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/tools"
)

func TestExecVerdict(t *testing.T) {
	safe := tools.ExecRequest{Command: []string{"git", "status"}}
	build := tools.ExecRequest{Command: []string{"go", "build", "./..."}}
	escalate := tools.ExecRequest{Command: []string{"go", "build", "./..."}, Escalated: true, Justification: "needs the module cache"}
	danger := tools.ExecRequest{Command: []string{"git", "reset", "--hard"}}
	for _, tc := range []struct {
		policy    policy.ApprovalPolicy
		mode      policy.SandboxMode
		req       tools.ExecRequest
		want      verdict
		sandboxed bool
	}{
		{policy.Untrusted, policy.WorkspaceWrite, safe, run, true},
		{policy.Untrusted, policy.WorkspaceWrite, build, ask, true},
		{policy.Untrusted, policy.DangerFullAccess, build, ask, false},
		{policy.OnFailure, policy.WorkspaceWrite, build, run, true},
		{policy.OnRequest, policy.WorkspaceWrite, build, run, true},
		{policy.OnRequest, policy.WorkspaceWrite, escalate, ask, false},
		{policy.OnRequest, policy.ReadOnly, build, run, true},
		{policy.Never, policy.WorkspaceWrite, build, run, true},
		{policy.Never, policy.WorkspaceWrite, escalate, forbid, true},
		{policy.Never, policy.WorkspaceWrite, danger, forbid, true},
		{policy.OnRequest, policy.WorkspaceWrite, danger, ask, true},
		{policy.OnFailure, policy.DangerFullAccess, danger, ask, false},
		{policy.OnRequest, policy.DangerFullAccess, escalate, run, false},
	} {
		v, sandboxed, reason := execVerdict(tc.policy, tc.mode, tc.req)
		if v != tc.want || sandboxed != tc.sandboxed {
			t.Errorf("%s/%s %q: verdict %d sandboxed %v, want %d %v", tc.policy, tc.mode, tc.req.Command, v, sandboxed, tc.want, tc.sandboxed)
		}
		if v != run && reason == "" {
			t.Errorf("%s/%s %q: no reason given", tc.policy, tc.mode, tc.req.Command)
		}
	}
}

func TestPatchVerdict(t *testing.T) {
	for _, tc := range []struct {
		policy policy.ApprovalPolicy
		inside bool
		want   verdict
	}{
		{policy.Untrusted, true, ask}, {policy.Untrusted, false, ask},
		{policy.OnFailure, true, run}, {policy.OnFailure, false, ask},
		{policy.OnRequest, true, run}, {policy.OnRequest, false, ask},
		{policy.Never, true, run}, {policy.Never, false, forbid},
	} {
		var outside []string
		if !tc.inside {
			outside = []string{"/etc/x is outside the writable folders"}
		}
		if v, _ := patchVerdict(tc.policy, outside); v != tc.want {
			t.Errorf("%s inside=%v: %d, want %d", tc.policy, tc.inside, v, tc.want)
		}
	}
}

// askingFrontend answers approval requests from a list and records them.
type askingFrontend struct {
	*recorder
	mu      sync.Mutex
	answers []string
	asked   []*ApprovalRequest
	block   bool          // never answer: wait for the turn to end
	arrived chan struct{} // signalled for each request, when set
}

func (f *askingFrontend) RequestApproval(ctx context.Context, req *ApprovalRequest) (string, error) {
	f.mu.Lock()
	f.asked = append(f.asked, req)
	if f.arrived != nil {
		f.arrived <- struct{}{}
	}
	if f.block {
		f.mu.Unlock()
		<-ctx.Done()
		return "", ctx.Err()
	}
	var a string
	if len(f.answers) > 0 {
		a, f.answers = f.answers[0], f.answers[1:]
	}
	f.mu.Unlock()
	if a == "error" {
		return "", errors.New("client error")
	}
	return a, nil
}

func (f *askingFrontend) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.asked)
}

// testTurn makes a turn of a new session with the given policies.
func testTurn(t *testing.T, fe Frontend, ap policy.ApprovalPolicy, mode policy.SandboxMode) (*turn, context.Context) {
	t.Helper()
	return turnOf(t, newTestManager(t, &scriptedModel{}, fe), ap, mode)
}

// turnOf makes a turn of a new session of mgr with the given policies.
func turnOf(t *testing.T, mgr *Manager, ap policy.ApprovalPolicy, mode policy.SandboxMode) (*turn, context.Context) {
	t.Helper()
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: ap, SandboxMode: mode})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := mgr.session(info.SessionID)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	return &turn{s: s, id: "t1", cancel: cancel, done: make(chan struct{})}, ctx
}

func decisions(r *recorder) []string {
	var out []string
	for _, ev := range r.all() {
		if a, ok := ev.Payload.(event.Approval); ok {
			out = append(out, a.Decision)
		}
	}
	return out
}

func TestExecApprovalAllowAlwaysCoversLaterRuns(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowAlways}}
	tr, ctx := testTurn(t, fe, policy.Untrusted, policy.WorkspaceWrite)
	ap := turnApprover{tr}
	req := tools.ExecRequest{Command: []string{"go", "test", "./..."}, Cwd: tr.s.info.Cwd}
	for i := 0; i < 2; i++ {
		d, err := ap.Exec(ctx, req)
		if err != nil || !d.Allowed || !d.Sandboxed {
			t.Fatalf("run %d: %+v, %v", i, d, err)
		}
	}
	// A longer command with the approved prefix is covered too; another
	// folder is not.
	longer := req
	longer.Command = append(longer.Command, "-run", "X")
	if d, _ := ap.Exec(ctx, longer); !d.Allowed {
		t.Errorf("prefix not covered: %+v", d)
	}
	if fe.count() != 1 {
		t.Errorf("asked %d times, want 1", fe.count())
	}
	elsewhere := req
	elsewhere.Cwd = "/elsewhere"
	if d, _ := ap.Exec(ctx, elsewhere); d.Allowed {
		t.Errorf("another cwd was allowed without asking: %+v", d)
	}
	if got := strings.Join(decisions(fe.recorder), ","); got != "allowAlways,autoAllow,autoAllow,rejectOnce" {
		t.Errorf("approval events %s", got)
	}
	req0 := fe.asked[0]
	if req0.Kind != ApprovalExec || req0.Cwd != tr.s.info.Cwd || !strings.Contains(req0.Reason, "untrusted") || len(req0.Options) != 4 {
		t.Errorf("request %+v", req0)
	}
}

func TestExecApprovalRejections(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{RejectAlways, "", "error"}}
	tr, ctx := testTurn(t, fe, policy.OnRequest, policy.WorkspaceWrite)
	ap := turnApprover{tr}
	danger := tools.ExecRequest{Command: []string{"rm", "-rf", "build"}, Cwd: tr.s.info.Cwd}
	if d, _ := ap.Exec(ctx, danger); d.Allowed || !strings.Contains(d.Reason, "rest of the session") {
		t.Errorf("rejectAlways: %+v", d)
	}
	if d, _ := ap.Exec(ctx, danger); d.Allowed || fe.count() != 1 {
		t.Errorf("second run asked again or ran: %+v, asked %d", d, fe.count())
	}
	esc := tools.ExecRequest{Command: []string{"make"}, Cwd: tr.s.info.Cwd, Escalated: true, Justification: "writes ~/.cache"}
	for _, what := range []string{"null answer", "client error"} {
		if d, err := ap.Exec(ctx, esc); err != nil || d.Allowed {
			t.Errorf("%s: %+v %v", what, d, err)
		}
	}
	if !strings.Contains(fe.asked[1].Reason, "writes ~/.cache") {
		t.Errorf("escalation reason %q", fe.asked[1].Reason)
	}
}

func TestApprovalWaitEndsWithInterrupt(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), block: true, arrived: make(chan struct{}, 1)}
	tr, ctx := testTurn(t, fe, policy.Untrusted, policy.WorkspaceWrite)
	done := make(chan tools.ExecDecision)
	go func() {
		d, _ := turnApprover{tr}.Exec(ctx, tools.ExecRequest{Command: []string{"make"}})
		done <- d
	}()
	select {
	case <-fe.arrived:
	case d := <-done:
		t.Fatalf("returned before asking: %+v", d)
	}
	tr.cancel()
	if d := <-done; d.Allowed {
		t.Fatalf("an interrupted approval allowed the command")
	}
	if got := decisions(fe.recorder); len(got) != 1 || got[0] != Abort {
		t.Errorf("approval events %v", got)
	}
}

func TestAbortEndsTheTurn(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{Abort}}
	tr, ctx := testTurn(t, fe, policy.Untrusted, policy.WorkspaceWrite)
	if d, _ := (turnApprover{tr}).Exec(ctx, tools.ExecRequest{Command: []string{"make"}}); d.Allowed {
		t.Fatal("abort allowed the command")
	}
	if ctx.Err() == nil || !tr.interrupted.Load() {
		t.Error("abort did not interrupt the turn")
	}
}

func TestRetryUnsandboxed(t *testing.T) {
	for _, tc := range []struct {
		policy policy.ApprovalPolicy
		asks   bool
	}{{policy.OnFailure, true}, {policy.Untrusted, true}, {policy.OnRequest, false}, {policy.Never, false}} {
		fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowAlways}}
		tr, ctx := testTurn(t, fe, tc.policy, policy.WorkspaceWrite)
		req := tools.ExecRequest{Command: []string{"npm", "install"}, Cwd: tr.s.info.Cwd}
		d, err := turnApprover{tr}.RetryUnsandboxed(ctx, req, "EACCES: permission denied\nmore")
		if ok := d.Allowed; err != nil || ok != tc.asks || (fe.count() == 1) != tc.asks {
			t.Errorf("%s: retry %v err %v asked %d", tc.policy, ok, err, fe.count())
		}
		if tc.asks {
			if !strings.Contains(fe.asked[0].Reason, "EACCES: permission denied") {
				t.Errorf("reason %q", fe.asked[0].Reason)
			}
			again, _ := turnApprover{tr}.RetryUnsandboxed(ctx, req, "denied")
			if !again.Allowed || fe.count() != 1 {
				t.Errorf("%s: allowAlways did not cover the next retry", tc.policy)
			}
		}
	}
}

// patchRequest is a change of paths, resolved against the turn's session
// boundary as the file tools do.
func patchRequest(tr *turn, paths ...string) tools.PatchRequest {
	req := tools.PatchRequest{Paths: paths}
	for _, p := range paths {
		req.Targets = append(req.Targets, tr.s.boundary.Target(p))
	}
	return req
}

func withDiff(req tools.PatchRequest, diff, summary string) tools.PatchRequest {
	req.Diff, req.Summary = diff, summary
	return req
}

func TestPatchApproval(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowAlways}}
	tr, ctx := testTurn(t, fe, policy.Untrusted, policy.WorkspaceWrite)
	ap := turnApprover{tr}
	a, b := tr.s.info.Cwd+"/a.go", tr.s.info.Cwd+"/b.go"
	if d, _ := ap.Patch(ctx, withDiff(patchRequest(tr, a, b), "--- a\n+++ b\n", "2 files")); !d.Allowed {
		t.Fatalf("patch: %+v", d)
	}
	if d, _ := ap.Patch(ctx, patchRequest(tr, a)); !d.Allowed || fe.count() != 1 {
		t.Errorf("allowAlways did not cover a later patch to the same file: %+v, asked %d", d, fe.count())
	}
	if fe.asked[0].Diff == "" || len(fe.asked[0].Files) != 2 {
		t.Errorf("request %+v", fe.asked[0])
	}

	fe2 := &askingFrontend{recorder: newRecorder()}
	tr2, ctx2 := testTurn(t, fe2, policy.Never, policy.WorkspaceWrite)
	if d, _ := (turnApprover{tr2}).Patch(ctx2, patchRequest(tr2, "/etc/passwd")); d.Allowed || fe2.count() != 0 {
		t.Errorf("never + outside: %+v, asked %d", d, fe2.count())
	}
	if d, _ := (turnApprover{tr2}).Patch(ctx2, patchRequest(tr2, tr2.s.info.Cwd+"/x")); !d.Allowed {
		t.Errorf("never + inside: %+v", d)
	}
}

func TestNoApproverRejects(t *testing.T) {
	rec := newRecorder()
	tr, ctx := testTurn(t, rec, policy.Untrusted, policy.WorkspaceWrite)
	if d, _ := (turnApprover{tr}).Exec(ctx, tools.ExecRequest{Command: []string{"make"}}); d.Allowed {
		t.Error("a frontend that cannot ask approved a command")
	}
}
