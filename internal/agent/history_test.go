package agent

import (
	"testing"

	"github.com/agent-ls/agent-ls/internal/model"
)

// TestRecordAndRestore: a session brought back from its record continues
// its conversation, turn numbering and event sequence.
func TestRecordAndRestore(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("m1", "first answer"))
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "one"}); err != nil {
		t.Fatal(err)
	}
	rec.wait(t)
	saved, err := mgr.Record(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	lastSeq := rec.all()[len(rec.all())-1].Seq
	if saved.Turns != 1 || saved.Seq != lastSeq || len(saved.History) == 0 {
		t.Fatalf("record: turns %d seq %d (want %d), %d items", saved.Turns, saved.Seq, lastSeq, len(saved.History))
	}

	m2 := &scriptedModel{}
	m2.add(say("m2", "second answer"))
	rec2 := newRecorder()
	mgr2 := newTestManager(t, m2, rec2)
	saved.Info.Cwd = t.TempDir()
	got, err := mgr2.Restore(saved)
	if err != nil || got.SessionID != info.SessionID {
		t.Fatalf("restore: %+v, %v", got, err)
	}
	if _, err := mgr2.Restore(saved); err == nil {
		t.Error("restored the same session twice")
	}
	turnID, err := startID(mgr2.StartTurn(info.SessionID, TurnInput{Prompt: "two"}))
	if err != nil {
		t.Fatal(err)
	}
	rec2.wait(t)
	if turnID != info.SessionID+"-t2" {
		t.Errorf("turn id %s after a restored turn 1", turnID)
	}
	if first := rec2.all()[0].Seq; first != lastSeq+1 {
		t.Errorf("seq went on from %d, want %d", first, lastSeq+1)
	}
	req := m2.request(0)
	if n := len(req.Input); n != len(saved.History)+1 {
		t.Errorf("the next request has %d items, want the %d restored plus the prompt", n, len(saved.History))
	}
}

func TestHistoryObserveAndReplace(t *testing.T) {
	var seen []string
	h := History{observe: func(it model.Item) { seen = append(seen, it.Text) }}
	h.Append(model.Item{Text: "a"}, model.Item{Text: "b"})
	h.Replace([]model.Item{{Text: "summary"}})
	h.Append(model.Item{Text: "c"})
	if got := h.Items(); len(got) != 2 || got[0].Text != "summary" || got[1].Text != "c" {
		t.Errorf("items %+v", got)
	}
	if len(seen) != 3 || seen[2] != "c" {
		t.Errorf("observed %q", seen)
	}
}
