package agent

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"

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
	if fe.count() != 1 {
		t.Errorf("asked %d times, want 1", fe.count())
	}
	if got := strings.Join(decisions(fe.recorder), ","); got != "allowAlways,autoAllow" {
		t.Errorf("approval events %s", got)
	}
	req0 := fe.asked[0]
	if req0.Kind != ApprovalExec || req0.Cwd != tr.s.info.Cwd || !strings.Contains(req0.Reason, "untrusted") || len(req0.Options) != 4 {
		t.Errorf("request %+v", req0)
	}
	if !strings.Contains(req0.Always, "exact command") || !strings.Contains(req0.Always, "in the sandbox") {
		t.Errorf("the question does not say what \"always\" covers: %q", req0.Always)
	}
}

// TestExecAlwaysCoversTheExactCommand: an "always" answer covers the
// command the user saw, in its folder and with its sandbox request, and
// nothing longer: a later command that starts with the same words asks
// again. The questions are about running outside the sandbox (the model
// asked for it, or no sandbox is there), where a longer command would
// run unconfined.
func TestExecAlwaysCoversTheExactCommand(t *testing.T) {
	for _, tc := range []struct {
		name          string
		first, second []string
	}{
		{"an option writing elsewhere", []string{"git", "log", "-1", "--oneline"}, []string{"git", "log", "-1", "--oneline", "--output=/outside"}},
		{"find -exec", []string{"find", ".", "-name", "x"}, []string{"find", ".", "-name", "x", "-exec", "rm", "{}", "+"}},
		{"more arguments", []string{"go", "test", "./..."}, []string{"go", "test", "./...", "-exec", "/tmp/evil"}},
	} {
		for _, how := range []string{"escalated", "no sandbox"} {
			for _, answer := range []string{AllowAlways, RejectAlways} {
				t.Run(tc.name+"/"+how+"/"+answer, func(t *testing.T) {
					fe := &askingFrontend{recorder: newRecorder(), answers: []string{answer, RejectOnce}}
					mgr := managerWith(t, &scriptedModel{}, fe, func(o *Options) {
						if how == "no sandbox" {
							o.SandboxUnavailable = func() string { return "the kernel has no landlock" }
						}
					})
					tr, ctx := turnOf(t, mgr, policy.OnRequest, policy.WorkspaceWrite)
					ap := turnApprover{tr}
					first := tools.ExecRequest{Command: tc.first, Cwd: tr.s.info.Cwd, Escalated: how == "escalated"}
					if d, _ := ap.Exec(ctx, first); d.Allowed != (answer == AllowAlways) || d.Sandboxed || fe.count() != 1 {
						t.Fatalf("first: %+v, asked %d times", d, fe.count())
					}
					if d, _ := ap.Exec(ctx, first); d.Allowed != (answer == AllowAlways) || d.Sandboxed || fe.count() != 1 {
						t.Fatalf("the same command again: %+v, asked %d times", d, fe.count())
					}
					longer := first
					longer.Command = tc.second
					d, err := ap.Exec(ctx, longer)
					if err != nil || d.Allowed || fe.count() != 2 {
						t.Fatalf("%q after %s on %q: %+v %v, asked %d times; want asked again (and rejected)", tc.second, answer, tc.first, d, err, fe.count())
					}
					if got := fe.asked[1].Command; !slices.Equal(got, tc.second) {
						t.Errorf("asked about %q", got)
					}
				})
			}
		}
	}
}

func TestExecAlwaysCoversOneFolder(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowAlways, RejectOnce}}
	tr, ctx := testTurn(t, fe, policy.Untrusted, policy.WorkspaceWrite)
	ap := turnApprover{tr}
	req := tools.ExecRequest{Command: []string{"make"}, Cwd: tr.s.info.Cwd}
	if d, _ := ap.Exec(ctx, req); !d.Allowed {
		t.Fatalf("allowAlways: %+v", d)
	}
	elsewhere := req
	elsewhere.Cwd = filepath.Join(tr.s.info.Cwd, "sub")
	if d, _ := ap.Exec(ctx, elsewhere); d.Allowed || fe.count() != 2 {
		t.Errorf("another folder: %+v, asked %d times; want asked again", d, fe.count())
	}
}

// TestExecAlwaysCoversOneSandboxRequest: allowing a command in the sandbox
// does not allow it outside, and allowing it outside (escalated) does not
// make the same command asked for in the sandbox run outside it.
func TestExecAlwaysCoversOneSandboxRequest(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowAlways, RejectOnce}}
	tr, ctx := testTurn(t, fe, policy.Untrusted, policy.WorkspaceWrite)
	ap := turnApprover{tr}
	sandboxed := tools.ExecRequest{Command: []string{"make"}, Cwd: tr.s.info.Cwd}
	escalated := sandboxed
	escalated.Escalated, escalated.Justification = true, "writes ~/.cache"
	if d, _ := ap.Exec(ctx, sandboxed); !d.Allowed || !d.Sandboxed {
		t.Fatalf("allowAlways in the sandbox: %+v", d)
	}
	if d, _ := ap.Exec(ctx, escalated); d.Allowed || fe.count() != 2 {
		t.Errorf("escalated after allowAlways in the sandbox: %+v, asked %d times; want asked again", d, fe.count())
	}
	if !strings.Contains(fe.asked[1].Always, "outside the sandbox") {
		t.Errorf("the escalation's question says \"always\" covers %q", fe.asked[1].Always)
	}

	fe2 := &askingFrontend{recorder: newRecorder(), answers: []string{AllowAlways, AllowOnce}}
	tr2, ctx2 := testTurn(t, fe2, policy.Untrusted, policy.WorkspaceWrite)
	ap2 := turnApprover{tr2}
	escalated.Cwd, sandboxed.Cwd = tr2.s.info.Cwd, tr2.s.info.Cwd
	if d, _ := ap2.Exec(ctx2, escalated); !d.Allowed || d.Sandboxed {
		t.Fatalf("allowAlways escalated: %+v", d)
	}
	d, _ := ap2.Exec(ctx2, sandboxed)
	if fe2.count() != 2 {
		t.Errorf("in the sandbox after allowAlways escalated: asked %d times; want asked again", fe2.count())
	}
	if !d.Allowed || !d.Sandboxed {
		t.Errorf("a command asked for in the sandbox ran %+v", d)
	}
}

// TestRestoredAlwaysIsExact: a record's command rule, from an agent-ls
// that took it as a prefix, covers only the exact command once restored.
func TestRestoredAlwaysIsExact(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder()}
	mgr := newTestManager(t, &scriptedModel{}, fe)
	cwd := t.TempDir()
	// Rules as an older agent-ls wrote them ({"t":"approval","rule":…}):
	// "allow always" on git log -1 --oneline run outside the sandbox,
	// "reject always" on make, "allow always" on running npm install
	// again without the sandbox.
	var allow, reject, retry ApprovalRule
	for raw, r := range map[string]*ApprovalRule{
		`{"command":["git","log","-1","--oneline"],"cwd":` + strconv.Quote(cwd) + `,"allow":true,"unsandbox":true}`: &allow,
		`{"command":["make"],"cwd":` + strconv.Quote(cwd) + `,"allow":false}`:                                       &reject,
		`{"command":["npm","install"],"cwd":` + strconv.Quote(cwd) + `,"allow":true,"retryAllow":true}`:             &retry,
	} {
		if err := json.Unmarshal([]byte(raw), r); err != nil {
			t.Fatal(err)
		}
	}
	info, err := mgr.Restore(SessionRecord{Info: SessionInfo{SessionID: "s-old", Cwd: cwd, ApprovalPolicy: policy.Untrusted, SandboxMode: policy.WorkspaceWrite},
		Approvals: []ApprovalRule{allow, reject, retry}})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := mgr.session(info.SessionID)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	ap := turnApprover{&turn{s: s, id: "t1", cancel: cancel, done: make(chan struct{})}}
	asked := func(want int, what string, allowed, wantAllowed bool, d any) {
		t.Helper()
		if fe.count() != want || allowed != wantAllowed {
			t.Errorf("%s: %+v, asked %d times in all, want %d", what, d, fe.count(), want)
		}
	}

	gitLog := tools.ExecRequest{Command: []string{"git", "log", "-1", "--oneline"}, Cwd: cwd, Escalated: true}
	d, _ := ap.Exec(ctx, gitLog)
	asked(0, "the restored command itself", d.Allowed && !d.Sandboxed, true, d)
	longer := gitLog
	longer.Command = []string{"git", "log", "-1", "--oneline", "--output=/outside"}
	d, _ = ap.Exec(ctx, longer)
	asked(1, "a longer command after a restored allow", d.Allowed, false, d)
	// Asked for in the sandbox, the command runs there.
	inSandbox := gitLog
	inSandbox.Escalated = false
	d, _ = ap.Exec(ctx, inSandbox)
	asked(1, "the restored command asked for in the sandbox", d.Allowed && d.Sandboxed, true, d)

	d, _ = ap.Exec(ctx, tools.ExecRequest{Command: []string{"make"}, Cwd: cwd})
	asked(1, "the restored rejection itself", d.Allowed, false, d)
	d, _ = ap.Exec(ctx, tools.ExecRequest{Command: []string{"make", "install"}, Cwd: cwd})
	asked(2, "a longer command after a restored rejection", d.Allowed, false, d)

	r, _ := ap.RetryUnsandboxed(ctx, tools.ExecRequest{Command: []string{"npm", "install"}, Cwd: cwd}, "denied")
	asked(2, "the restored retry itself", r.Allowed, true, r)
	r, _ = ap.RetryUnsandboxed(ctx, tools.ExecRequest{Command: []string{"npm", "install", "--global"}, Cwd: cwd}, "denied")
	asked(3, "a longer retry after a restored one", r.Allowed, false, r)
}

// TestAlwaysIsRecordedExactly: what the record keeps restores to the same
// answers, each about its own question.
func TestAlwaysIsRecordedExactly(t *testing.T) {
	fe := &askingFrontend{recorder: newRecorder(), answers: []string{AllowAlways, RejectAlways, AllowAlways}}
	tr, ctx := testTurn(t, fe, policy.Untrusted, policy.WorkspaceWrite)
	var rules []ApprovalRule
	tr.s.approvals.observe = func(r ApprovalRule) { rules = append(rules, r) }
	ap := turnApprover{tr}
	cwd := tr.s.info.Cwd
	ap.Exec(ctx, tools.ExecRequest{Command: []string{"make"}, Cwd: cwd})
	ap.Exec(ctx, tools.ExecRequest{Command: []string{"make"}, Cwd: cwd, Escalated: true})
	ap.RetryUnsandboxed(ctx, tools.ExecRequest{Command: []string{"make"}, Cwd: cwd}, "denied")
	want := []ApprovalRule{
		{Command: []string{"make"}, Cwd: cwd, Allow: true},
		{Command: []string{"make"}, Cwd: cwd, Unsandbox: true},
		{Command: []string{"make"}, Cwd: cwd, Allow: true, Retry: true},
	}
	if !reflect.DeepEqual(rules, want) {
		t.Fatalf("recorded %+v\nwant %+v", rules, want)
	}
	var restored approvalStore
	for _, r := range rules {
		restored.restore(r)
	}
	for _, tc := range []struct {
		scope execScope
		allow bool
	}{{inSandbox, true}, {outsideSandbox, false}, {retryOutside, true}} {
		c, ok := restored.lookupCommand([]string{"make"}, cwd, tc.scope)
		if !ok || c.allow != tc.allow {
			t.Errorf("scope %d restored as %+v %v", tc.scope, c, ok)
		}
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
			longer := req
			longer.Command = append(slices.Clone(req.Command), "--prefix=/outside")
			if d, _ := (turnApprover{tr}).RetryUnsandboxed(ctx, longer, "denied"); d.Allowed || fe.count() != 2 {
				t.Errorf("%s: allowAlways on a retry covered a longer command: %+v, asked %d times", tc.policy, d, fe.count())
			}
			// Allowing the retry is not allowing the model to ask for
			// the command outside the sandbox.
			esc := req
			esc.Escalated = true
			if d, _ := (turnApprover{tr}).Exec(ctx, esc); d.Allowed || fe.count() != 3 {
				t.Errorf("%s: allowAlways on a retry covered an escalation: %+v, asked %d times", tc.policy, d, fe.count())
			}
			if !strings.Contains(fe.asked[0].Always, "when the sandbox blocks it") {
				t.Errorf("the retry's question says \"always\" covers %q", fe.asked[0].Always)
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
