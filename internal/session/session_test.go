package session

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

const editPatch = `*** Begin Patch
*** Update File: a.txt
@@
-one
+ONE
*** Add File: b.txt
+new
*** End Patch`

// A session recorded by one manager is brought back by another (as after
// a restart): the next request carries the whole history, the turn
// numbering goes on, and undo restores the files of a turn from before
// the restart.
func TestResumeContinuesHistoryAndUndo(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := New(dir, nil)
	m := &script{replies: [][]model.Item{patchCall("p1", editPatch), answer("m1", "patched")}}
	fe := newFrontend(agent.AllowOnce)
	mgr := manager(t, st, m, fe, ws, policy.OnRequest)
	info, err := mgr.NewSession(agent.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if tc := runTurn(t, mgr, fe, info.SessionID, "Make it loud\nplease"); tc.Status != event.StatusCompleted {
		t.Fatalf("turn 1: %+v", tc)
	}
	sent := m.lastRequest().Input
	mgr.Close()
	st.Close()

	st2 := New(dir, nil)
	ld, err := st2.Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ld.Problems) > 0 {
		t.Errorf("problems: %q", ld.Problems)
	}
	var types []string
	for _, it := range ld.Items {
		types = append(types, string(it.Type))
	}
	if got := strings.Join(types, ","); got != "turnStarted,toolCall,fileChange,toolResult,message,turnCompleted" {
		t.Errorf("history items %s", got)
	}
	// Two responses of 100 tokens in and 10 out.
	if want := (event.UsageTotal{InputTokens: 200, OutputTokens: 20}); ld.Record.Usage != want {
		t.Errorf("the record's usage %+v, want %+v", ld.Record.Usage, want)
	}
	m2 := &script{replies: [][]model.Item{answer("m2", "again")}}
	fe2 := newFrontend(agent.AllowOnce)
	mgr2 := manager(t, st2, m2, fe2, ws, policy.OnRequest)
	if _, err := mgr2.Restore(ld.Record); err != nil {
		t.Fatal(err)
	}
	turn, err := mgr2.StartTurn(info.SessionID, agent.TurnInput{Prompt: "and now?"})
	if err != nil {
		t.Fatal(err)
	}
	<-turn.Done()
	<-fe2.ended
	if turn.ID() != info.SessionID+"-t2" {
		t.Errorf("the turn after the restart is %s", turn.ID())
	}
	// The session's usage goes on from the record's.
	var last *event.Usage
	fe2.mu.Lock()
	for _, ev := range fe2.events {
		if u, ok := ev.Payload.(event.Usage); ok {
			last = &u
		}
	}
	fe2.mu.Unlock()
	if last == nil || last.Total == nil || *last.Total != (event.UsageTotal{InputTokens: 300, OutputTokens: 30}) || last.ContextTokens != 110 {
		t.Errorf("usage after the restart: %+v", last)
	}
	got := m2.lastRequest().Input
	// The request after the restart is the one before plus the model's
	// answer and the new prompt.
	if len(got) != len(sent)+2 || got[len(got)-1].Text == "" || !strings.Contains(got[len(got)-1].Text, "and now?") {
		t.Fatalf("request after the restart has %d items (before: %d): %+v", len(got), len(sent), got)
	}
	for i := range sent {
		if !equalItem(got[i], sent[i]) {
			t.Errorf("item %d differs after the restart:\n got %+v\nwant %+v", i, got[i], sent[i])
		}
	}
	if got[len(sent)].Text != "patched" {
		t.Errorf("the answer of turn 1 is not in the history: %+v", got[len(sent)])
	}

	paths, err := mgr2.UndoTurn(context.Background(), info.SessionID, info.SessionID+"-t1")
	if err != nil {
		t.Fatalf("undo of a turn from before the restart: %v", err)
	}
	if len(paths) != 2 {
		t.Errorf("undo restored %v", paths)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "one\n" {
		t.Errorf("a.txt after undo: %q", b)
	}
	if _, err := os.Stat(filepath.Join(ws, "b.txt")); !os.IsNotExist(err) {
		t.Errorf("b.txt after undo: %v", err)
	}
	// The undo is recorded: after another restart it is not done twice.
	mgr2.Close()
	st2.Close()
	ld, err = New(dir, nil).Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ld.Record.Undo) != 1 || !ld.Record.Undo[0].Undone {
		t.Errorf("undo data after the undo: %+v", ld.Record.Undo)
	}
	if ld.Record.Turns != 2 {
		t.Errorf("turns %d", ld.Record.Turns)
	}
}

func equalItem(a, b model.Item) bool {
	return a.Type == b.Type && a.ID == b.ID && a.Role == b.Role && a.Text == b.Text && a.CallID == b.CallID &&
		a.Name == b.Name && a.Arguments == b.Arguments && a.Input == b.Input && a.Output == b.Output && slices.Equal(a.Summary, b.Summary)
}

// "Allow always" for files holds in the session after a restart: the
// change that asked before is allowed by the remembered answer.
func TestAllowAlwaysSurvivesRestart(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	st := New(dir, nil)
	m := &script{replies: [][]model.Item{patchCall("p1", "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** End Patch"), answer("m1", "ok")}}
	fe := newFrontend(agent.AllowAlways)
	mgr := manager(t, st, m, fe, ws, policy.Untrusted)
	info, err := mgr.NewSession(agent.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr, fe, info.SessionID, "change it")
	if fe.asked != 1 {
		t.Fatalf("asked %d times in turn 1", fe.asked)
	}
	mgr.Close()
	st.Close()

	st2 := New(dir, nil)
	ld, err := st2.Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	m2 := &script{replies: [][]model.Item{patchCall("p2", "*** Begin Patch\n*** Update File: a.txt\n@@\n-two\n+three\n*** End Patch"), answer("m2", "ok")}}
	fe2 := newFrontend(agent.RejectOnce) // asked, it would refuse
	mgr2 := manager(t, st2, m2, fe2, ws, policy.Untrusted)
	if _, err := mgr2.Restore(ld.Record); err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr2, fe2, info.SessionID, "change it again")
	if fe2.asked != 0 {
		t.Errorf("asked %d times after the restart", fe2.asked)
	}
	if a := fe2.approvals(); len(a) != 1 || a[0].Decision != agent.AutoAllow {
		t.Errorf("approvals after the restart: %+v", a)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "three\n" {
		t.Errorf("a.txt: %q", b)
	}
}

// The record's directory and files are the user's alone.
func TestFileModes(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\n"), 0o644)
	st := New(dir, nil)
	m := &script{replies: [][]model.Item{patchCall("p1", editPatch), answer("m1", "ok")}}
	fe := newFrontend(agent.AllowOnce)
	mgr := manager(t, st, m, fe, ws, policy.OnRequest)
	info, _ := mgr.NewSession(agent.SessionOptions{})
	runTurn(t, mgr, fe, info.SessionID, "go")
	for path, want := range map[string]os.FileMode{dir: 0o700 | os.ModeDir, st.path(info.SessionID): 0o600, st.undoPath(info.SessionID): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode() != want {
			t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
		}
	}
	// Nothing of the session went into the workspace.
	entries, _ := os.ReadDir(ws)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != "a.txt,b.txt" {
		t.Errorf("the workspace holds %v", names)
	}
}

// A record cut by a crash (a last line half written, a turn without its
// end, a call without its output) still loads: the torn line is reported
// and ignored, the turn is shown interrupted, and the call is answered
// so the next request is valid.
func TestTornRecordLoads(t *testing.T) {
	dir := stateDir(t)
	st := New(dir, nil)
	info := agent.SessionInfo{SessionID: "s-torn", Cwd: t.TempDir(), Model: "m"}
	obs, err := st.Observe(info, false)
	if err != nil {
		t.Fatal(err)
	}
	ev := func(seq int64, p event.Payload) {
		obs.Event(event.Event{SessionID: "s-torn", TurnID: "s-torn-t1", Seq: seq, Payload: p})
	}
	obs.Item(model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: "fix it"})
	ev(1, event.TurnStarted{Prompt: "fix it"})
	obs.Item(model.Item{Type: model.ItemFunctionCall, CallID: "c1", Name: "shell", Arguments: `{"command":["ls"]}`})
	ev(2, event.ToolCall{CallID: "c1", Tool: "shell", Kind: event.KindExecute, Title: "ls"})
	st.Close()
	f, err := os.OpenFile(st.path("s-torn"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"t":"event","at":"2026-01-01T00:00:00Z","sessionId":"s-to`)
	f.Close()

	ld, err := st.Load("s-torn")
	if err != nil {
		t.Fatal(err)
	}
	if len(ld.Problems) != 1 || !strings.Contains(ld.Problems[0], "cut short") {
		t.Errorf("problems %q", ld.Problems)
	}
	last, err := ld.Items[len(ld.Items)-1].Event()
	if tc, ok := last.Payload.(event.TurnCompleted); err != nil || !ok || tc.Status != event.StatusInterrupted {
		t.Errorf("the cut turn ends with %+v", last)
	}
	if ld.Record.Turns != 1 || ld.Record.Seq != 2 {
		t.Errorf("turns %d seq %d", ld.Record.Turns, ld.Record.Seq)
	}
	m := &script{replies: [][]model.Item{answer("m", "ok")}}
	fe := newFrontend(agent.AllowOnce)
	mgr := manager(t, st, m, fe, info.Cwd, policy.OnRequest)
	ld.Record.Info.Cwd = info.Cwd
	if _, err := mgr.Restore(ld.Record); err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr, fe, "s-torn", "again")
	in := m.lastRequest().Input
	var answered bool
	for _, it := range in {
		if it.Type == model.ItemFunctionCallOutput && it.CallID == "c1" {
			answered = true
		}
	}
	if !answered {
		t.Errorf("the call cut by the crash has no output in the next request: %+v", in)
	}
	// The session went on in the same file: it loads with both turns.
	ld, err = st.Load("s-torn")
	if err != nil || ld.Record.Turns != 2 {
		t.Fatalf("after going on: %v, %+v", err, ld)
	}
	var types []string
	for _, it := range ld.Items {
		types = append(types, string(it.Type))
	}
	if got := strings.Join(types, ","); got != "turnStarted,toolCall,turnCompleted,turnStarted,message,turnCompleted" {
		t.Errorf("events after going on: %s", got)
	}
	if len(ld.Problems) != 1 || !strings.Contains(ld.Problems[0], "line 6 is skipped") {
		t.Errorf("problems after going on: %q", ld.Problems)
	}
	// The call's answer was recorded in its place, before the next prompt.
	if h := ld.Record.History; len(h) < 3 || h[2].Type != model.ItemFunctionCallOutput || h[2].CallID != "c1" {
		t.Errorf("history after going on: %+v", h)
	}
}

func TestListAndPrune(t *testing.T) {
	dir := stateDir(t)
	st := New(dir, nil)
	ws, other := t.TempDir(), t.TempDir()
	mk := func(id, cwd, prompt string, age time.Duration) {
		obs, err := st.Observe(agent.SessionInfo{SessionID: id, Cwd: cwd}, false)
		if err != nil {
			t.Fatal(err)
		}
		if prompt != "" {
			obs.Event(event.Event{SessionID: id, TurnID: id + "-t1", Seq: 1, Payload: event.TurnStarted{Prompt: prompt}})
			obs.Event(event.Event{SessionID: id, TurnID: id + "-t2", Seq: 5, Payload: event.TurnStarted{Prompt: "second"}})
		}
		when := time.Now().Add(-age)
		os.Chtimes(st.path(id), when, when)
	}
	mk("s-old", ws, "old work", 48*time.Hour)
	mk("s-new", filepath.Join(ws, "sub"), "new work\nwith details", time.Hour)
	mk("s-elsewhere", other, strings.Repeat("long ", 40), 0)
	mk("s-empty", ws, "", 2*time.Hour)
	st.Close()
	os.WriteFile(filepath.Join(dir, "not-a-session.txt"), []byte("x"), 0o600)

	list, err := st.List(ws)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range list {
		ids = append(ids, s.SessionID)
	}
	if got := strings.Join(ids, ","); got != "s-new,s-empty,s-old,s-elsewhere" {
		t.Errorf("order %s", got)
	}
	if list[0].Title != "new work …" || list[0].Turns != 2 || list[1].Turns != 0 {
		t.Errorf("summaries %+v", list[:2])
	}
	if r := []rune(list[3].Title); len(r) > titleRunes {
		t.Errorf("a title of %d runes", len(r))
	}
	if latest, err := st.Latest(ws); err != nil || latest.SessionID != "s-new" {
		t.Errorf("latest %+v %v", latest, err)
	}
	if _, err := st.Latest(t.TempDir()); err == nil {
		t.Error("a workspace without sessions has a latest one")
	}

	gone, err := st.Prune(24 * time.Hour)
	if err != nil || strings.Join(gone, ",") != "s-old" {
		t.Errorf("pruned %v, %v", gone, err)
	}
	if _, err := st.Load("s-old"); err == nil {
		t.Error("a pruned session loads")
	}
	if _, err := st.Load("../../etc/passwd"); err == nil {
		t.Error("a path loads as a session")
	}
}

// One writer at a time appends to a session's record: another store (as
// another agent-ls would) finds it in use until it is released.
func TestRecordInUse(t *testing.T) {
	dir := stateDir(t)
	st, other := New(dir, nil), New(dir, nil)
	info := agent.SessionInfo{SessionID: "s-busy", Cwd: t.TempDir()}
	if _, err := st.Observe(info, false); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Observe(info, true); !errors.Is(err, ErrInUse) {
		t.Errorf("a second writer in the same store: %v", err)
	}
	for _, s := range []*Store{st, other} {
		if err := s.CheckFree("s-busy"); !errors.Is(err, ErrInUse) && runtime.GOOS != "windows" {
			t.Errorf("CheckFree while it is written: %v", err)
		}
	}
	if _, err := other.Observe(info, true); !errors.Is(err, ErrInUse) && runtime.GOOS != "windows" {
		t.Errorf("another store writes it too: %v", err)
	}
	st.Release("s-busy")
	if err := other.CheckFree("s-busy"); err != nil {
		t.Errorf("CheckFree after release: %v", err)
	}
	if _, err := other.Observe(info, true); err != nil {
		t.Errorf("another store after release: %v", err)
	}
	other.Close()
}

// A change of the session's settings between turns (the defaults
// changed) is kept: the session comes back with the settings it last ran
// with.
func TestSettingsChangeKept(t *testing.T) {
	dir, ws := stateDir(t), t.TempDir()
	st := New(dir, nil)
	m := &script{replies: [][]model.Item{answer("m1", "one"), answer("m2", "two")}}
	fe := newFrontend(agent.AllowOnce)
	mgr := manager(t, st, m, fe, ws, policy.OnRequest)
	info, err := mgr.NewSession(agent.SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr, fe, info.SessionID, "first")
	if err := mgr.UpdateDefaults(func(d *agent.Defaults) { d.ModelName = "other-model" }); err != nil {
		t.Fatal(err)
	}
	runTurn(t, mgr, fe, info.SessionID, "second")
	if got := m.lastRequest().Model; got != "other-model" {
		t.Fatalf("the second turn asked %s", got)
	}
	ld, err := st.Load(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if ld.Record.Info.Model != "other-model" || ld.Record.Info.SessionID != info.SessionID {
		t.Errorf("settings after loading: %+v", ld.Record.Info)
	}
}

// A change under review is not kept: what became of it is, so a resumed
// session redraws one card per change.
func TestProposedChangeIsNotKept(t *testing.T) {
	st := New(stateDir(t), nil)
	info := agent.SessionInfo{SessionID: "s-review", Cwd: t.TempDir(), Model: "m"}
	obs, err := st.Observe(info, false)
	if err != nil {
		t.Fatal(err)
	}
	ev := func(seq int64, p event.Payload) {
		obs.Event(event.Event{SessionID: "s-review", TurnID: "s-review-t1", Seq: seq, Payload: p})
	}
	ev(1, event.TurnStarted{Prompt: "edit"})
	ev(2, event.FileChange{CallID: "p1", Status: event.ChangeProposed, Diff: "+a\n"})
	ev(3, event.FileChange{CallID: "p1", Status: event.ChangeApplied, Diff: "+a\n"})
	ev(4, event.TurnCompleted{Status: event.StatusCompleted})
	st.Close()
	ld, err := st.Load("s-review")
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, it := range ld.Items {
		e, err := it.Event()
		if err != nil {
			t.Fatal(err)
		}
		if fc, ok := e.Payload.(event.FileChange); ok {
			statuses = append(statuses, string(fc.Status))
		}
	}
	if strings.Join(statuses, ",") != "applied" {
		t.Errorf("kept fileChange statuses %v", statuses)
	}
}
