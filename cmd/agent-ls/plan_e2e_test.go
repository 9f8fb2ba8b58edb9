package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// The model's turn in plan mode: a patch and a command that write, then
// its checklist and its plan.
var planModeSteps = []fakemodel.Step{
	fakemodel.Answer(
		fakemodel.CustomToolCall("p1", "apply_patch", "*** Begin Patch\n*** Add File: patched.txt\n+x\n*** End Patch\n"),
		fakemodel.FunctionCall("s1", "shell", `{"command":["bash","-lc","touch planned.txt"]}`)),
	fakemodel.Answer(fakemodel.FunctionCall("u1", "update_plan", `{"plan":[{"step":"create done.txt","status":"pending"}]}`)),
	fakemodel.Say("Plan: create done.txt."),
}

// The model's turn that carries the plan out.
var carryOutSteps = []fakemodel.Step{
	fakemodel.Answer(fakemodel.FunctionCall("s2", "shell", `{"command":["bash","-lc","touch done.txt"]}`)),
	fakemodel.Say("Done."),
}

// checkPlanTurn checks what a turn in plan mode left in dir: the patch
// refused because plan mode is on, the command failed in the read-only
// sandbox, neither file written. results are the turn's tool results by
// call id.
func checkPlanTurn(t *testing.T, dir string, results map[string]string) {
	t.Helper()
	if out := results["p1"]; !strings.Contains(out, "plan mode is on") {
		t.Errorf("the patch in plan mode: %q, want refused because plan mode is on", out)
	}
	if out := results["s1"]; strings.Contains(out, "Exit code: 0") || !strings.Contains(out, "cannot touch") {
		t.Errorf("touch in plan mode: %q, want it to fail in the read-only sandbox", out)
	}
	for _, f := range []string{"patched.txt", "planned.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after the turn in plan mode: %v, want it absent", f, err)
		}
	}
}

// lastUserText is the text of the last input item of a model request.
func lastUserText(t *testing.T, req *fakemodel.Request) string {
	t.Helper()
	in := inputTexts(t, req)
	if len(in) == 0 {
		return ""
	}
	return in[len(in)-1]
}

// Through the real server, the model's wire and the sandbox: a session
// started in plan mode refuses a patch and runs a writing command in the
// read-only sandbox, where it fails; after a restart the resumed session
// is still in plan mode with its plan, agent/approvePlan switches it back
// (modeChanged) and starts a turn that writes the file; the mode methods'
// errors are LSP errors.
func TestPlanModeThroughTheServer(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	m := fakemodel.New(planModeSteps...)
	t.Cleanup(m.Close)
	s := startOn(t, m, ws, env, editor.Config{}, editor.Options{Events: true})
	var info struct {
		SessionID string `json:"sessionId"`
		Mode      string `json:"mode"`
	}
	if err := s.ed.Request(s.ctx, "agent/newSession", map[string]any{"mode": "plan"}, &info); err != nil {
		t.Fatal(err)
	}
	if info.Mode != "plan" {
		t.Fatalf("agent/newSession answered mode %q", info.Mode)
	}
	sid := info.SessionID
	turn := s.startTurn(map[string]any{"sessionId": sid, "prompt": "create done.txt"})
	if done := s.wait(turn.TurnID); done.Status != "completed" || done.LastMessage != "Plan: create done.txt." {
		t.Fatalf("the turn in plan mode: %+v", done)
	}
	results := map[string]string{}
	for _, ev := range s.events(turn.TurnID) {
		if ev.Type == event.TypeToolResult {
			results[ev.CallID] = ev.Output
		}
	}
	checkPlanTurn(t, ws, results)
	if !strings.Contains(string(m.Requests()[0].Body), "# Plan mode") {
		t.Error("the request in plan mode lacks plan mode's instructions")
	}
	if err := s.ed.Shutdown(s.ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ed.Exit(s.ctx); err != nil {
		t.Fatal(err)
	}

	m2 := fakemodel.New(carryOutSteps...)
	t.Cleanup(m2.Close)
	s2 := startOn(t, m2, ws, env, editor.Config{}, editor.Options{Events: true})
	var resumed struct {
		Mode string `json:"mode"`
	}
	if err := s2.ed.Request(s2.ctx, "agent/resumeSession", map[string]any{"sessionId": sid}, &resumed); err != nil {
		t.Fatal(err)
	}
	if resumed.Mode != "plan" {
		t.Fatalf("the resumed session is in mode %q, want plan", resumed.Mode)
	}
	var approved struct {
		TurnID string `json:"turnId"`
	}
	if err := s2.ed.Request(s2.ctx, "agent/approvePlan", map[string]any{"sessionId": sid}, &approved); err != nil {
		t.Fatal(err)
	}
	if done := s2.wait(approved.TurnID); done.Status != "completed" || done.LastMessage != "Done." {
		t.Fatalf("the approved turn: %+v", done)
	}
	if _, err := os.Stat(filepath.Join(ws, "done.txt")); err != nil {
		t.Errorf("the approved turn did not write done.txt: %v", err)
	}
	if got := lastUserText(t, m2.Requests()[0]); got != agent.ApprovePrompt {
		t.Errorf("the approved turn's request ends with %q", got)
	}
	if strings.Contains(string(m2.Requests()[0].Body), "# Plan mode") {
		t.Error("the approved turn's request still has plan mode's instructions")
	}
	mode := ""
	for _, ev := range s2.ed.Events() {
		if ev.SessionID == sid && ev.Type == event.TypeModeChanged {
			p, err := event.Parse(ev.Raw)
			if err != nil {
				t.Fatal(err)
			}
			mode = p.Payload.(event.ModeChanged).Mode
		}
	}
	if mode != "default" {
		t.Errorf("the last modeChanged said %q, want default", mode)
	}
	for _, c := range []struct {
		method string
		params map[string]any
		code   jsonrpc2.Code
	}{
		{"agent/setMode", map[string]any{"sessionId": sid, "mode": "yolo"}, jsonrpc2.InvalidParams},
		{"agent/setMode", map[string]any{"sessionId": "s-nope", "mode": "plan"}, jsonrpc2.InvalidParams},
		{"agent/approvePlan", map[string]any{"sessionId": sid}, -32803},
	} {
		err := s2.ed.Request(s2.ctx, c.method, c.params, nil)
		var rpcErr *jsonrpc2.Error
		if !errors.As(err, &rpcErr) || rpcErr.Code != c.code {
			t.Errorf("%s %v: %v, want code %d", c.method, c.params, err, c.code)
		}
	}
}
