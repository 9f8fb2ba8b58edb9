package session

import (
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestModeSurvivesRestart: the record keeps the session's mode and
// whether a plan waits for approval: a session started in default mode,
// switched to plan mode, with a completed turn there, loads in plan mode
// with its plan; switched back, it loads in default mode without one.
func TestModeSurvivesRestart(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	st := New(dir, nil)
	fe := newFrontend("")
	mgr := manager(t, st, &script{replies: [][]model.Item{answer("a1", "Plan.")}}, fe, ws, policy.OnRequest)
	info, err := mgr.NewSession(agent.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.SetMode(info.SessionID, agent.ModePlan); err != nil {
		t.Fatal(err)
	}
	if end := runTurn(t, mgr, fe, info.SessionID, "plan it"); end.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", end)
	}
	load := func() *Loaded {
		t.Helper()
		ld, err := New(dir, nil).Load(info.SessionID)
		if err != nil {
			t.Fatal(err)
		}
		return ld
	}
	ld := load()
	if ld.Record.Info.Mode != agent.ModePlan || !ld.Record.Planned {
		t.Errorf("loaded mode %q planned %v, want plan with a plan", ld.Record.Info.Mode, ld.Record.Planned)
	}
	redrawn := false
	for _, it := range ld.Items {
		redrawn = redrawn || it.Type == event.TypeModeChanged
	}
	if !redrawn {
		t.Error("the mode change is not among the items that redraw the session")
	}
	if err := mgr.SetMode(info.SessionID, agent.ModeDefault); err != nil {
		t.Fatal(err)
	}
	if ld := load(); ld.Record.Info.Mode != agent.ModeDefault || ld.Record.Planned {
		t.Errorf("after the switch back: mode %q planned %v", ld.Record.Info.Mode, ld.Record.Planned)
	}
}
