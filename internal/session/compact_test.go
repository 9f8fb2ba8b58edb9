package session

import (
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestCompactionSurvivesRestart: a compaction is one line of the record;
// a session brought back after it sends the compacted history, not the
// one before, and its redraw shows the compaction.
func TestCompactionSurvivesRestart(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	st := New(dir, nil)
	m := &script{replies: [][]model.Item{answer("m1", "one"), answer("m_sum", "SUMMARY OF ONE")}}
	fe := newFrontend(agent.AllowOnce)
	mgr := manager(t, st, m, fe, ws, policy.OnRequest)
	info, err := mgr.NewSession(agent.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr, fe, info.SessionID, "first")
	turn, err := mgr.Compact(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if res := turn.Result(); res.Status != event.StatusCompleted {
		t.Fatalf("compaction: %+v", res)
	}
	<-fe.ended
	live, _ := mgr.Record(info.SessionID)
	mgr.Close()
	st.Close()

	ld, err := New(dir, nil).Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ld.Problems) > 0 {
		t.Errorf("problems: %q", ld.Problems)
	}
	if len(ld.Record.History) != len(live.History) {
		t.Fatalf("loaded history has %d items, the live one %d", len(ld.Record.History), len(live.History))
	}
	for i := range live.History {
		if !equalItem(ld.Record.History[i], live.History[i]) {
			t.Errorf("item %d differs:\n got %+v\nwant %+v", i, ld.Record.History[i], live.History[i])
		}
	}
	var types []string
	for _, it := range ld.Items {
		types = append(types, string(it.Type))
	}
	if got := strings.Join(types, ","); got != "turnStarted,message,turnCompleted,turnStarted,compacted,turnCompleted" {
		t.Errorf("redraw items %s", got)
	}
	if ld.Record.Turns != 2 {
		t.Errorf("turns %d", ld.Record.Turns)
	}

	m2 := &script{replies: [][]model.Item{answer("m2", "two")}}
	fe2 := newFrontend(agent.AllowOnce)
	mgr2 := manager(t, New(dir, nil), m2, fe2, ws, policy.OnRequest)
	if _, err := mgr2.Restore(ld.Record); err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr2, fe2, info.SessionID, "second")
	got := m2.lastRequest().Input
	var summaries int
	for _, it := range got {
		if strings.HasSuffix(it.Text, "SUMMARY OF ONE") {
			summaries++
		}
	}
	if summaries != 1 || len(got) != len(live.History)+1 || got[len(got)-1].Text != "second" {
		t.Errorf("request after the restart: %+v", got)
	}
}
