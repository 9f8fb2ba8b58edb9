package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// planValue is the plan config option's value in opts.
func planValue(opts []sdk.SessionConfigOption) string {
	for _, o := range opts {
		if o.Select != nil && o.Select.Id == "plan" {
			return string(o.Select.CurrentValue)
		}
	}
	return ""
}

// Through agent-ls acp and the Go SDK's client: the config option plan
// turns plan mode on, the turn refuses a patch and fails a writing
// command in the read-only sandbox, /approve (among the available
// commands) carries the plan out and writes the file, and the option
// shows plan mode off again.
func TestACPPlanModeAndApprove(t *testing.T) {
	dir := t.TempDir()
	m := fakemodel.New(append(append([]fakemodel.Step(nil), planModeSteps...), carryOutSteps...)...)
	t.Cleanup(m.Close)
	c := &acpClient{}
	r := startACP(t, m, dir, t.TempDir(), c)
	r.initialize(false)
	id := r.newSession()
	set, err := r.conn.SetSessionConfigOption(r.ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sdk.SessionId(id), ConfigId: "plan", Value: "on"}})
	if err != nil || planValue(set.ConfigOptions) != "on" {
		t.Fatalf("plan on: %v, options %+v", err, set.ConfigOptions)
	}
	if res, err := r.prompt(id, "create done.txt"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("the turn in plan mode: %+v %v", res, err)
	}
	for _, f := range []string{"patched.txt", "planned.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after the turn in plan mode: %v, want it absent", f, err)
		}
	}
	outputs := string(m.Requests()[1].Body)
	if !strings.Contains(outputs, "plan mode is on") || !strings.Contains(outputs, "cannot touch") {
		t.Errorf("the model was not told of the refusal and the failed command:\n%.3000s", outputs)
	}
	if res, err := r.prompt(id, "/approve"); err != nil || res.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/approve: %+v %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "done.txt")); err != nil {
		t.Errorf("the approved turn did not write done.txt: %v", err)
	}
	reqs := m.Requests()
	if len(reqs) != 5 || lastUserText(t, reqs[3]) != agent.ApprovePrompt {
		t.Fatalf("%d model requests; the approved turn's first ends with %q", len(reqs), lastUserText(t, reqs[min(3, len(reqs)-1)]))
	}
	offered, plan := false, ""
	c.mu.Lock()
	for _, n := range c.updates {
		if u := n.Update.AvailableCommandsUpdate; u != nil {
			for _, cmd := range u.AvailableCommands {
				offered = offered || cmd.Name == "approve"
			}
		}
		if u := n.Update.ConfigOptionUpdate; u != nil {
			plan = planValue(u.ConfigOptions)
		}
	}
	c.mu.Unlock()
	if !offered || plan != "off" {
		t.Errorf("/approve offered %v; the plan option after the approval %q, want off", offered, plan)
	}
}
