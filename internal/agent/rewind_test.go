package agent

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// fourRegions is a file with four regions far enough apart that an edit
// in one does not touch another.
const fourRegions = "r1\na\nb\nc\nr2\nd\ne\nf\nr3\ng\nh\ni\nr4\n"

func patchCall(id, patch string) model.Item {
	return model.Item{Type: model.ItemCustomToolCall, ID: "ct_" + id, CallID: id, Name: "apply_patch", Input: patch}
}

func shellCall(id, script string) model.Item {
	args, _ := json.Marshal(map[string]any{"command": []string{"sh", "-c", script}})
	return fcall(id, "shell", string(args))
}

const patchRegion1 = `*** Begin Patch
*** Update File: a.txt
@@
 r1
-a
+AGENT
 b
*** End Patch`

// rewindSession is a session whose commands run without a sandbox and
// without asking, in a workspace with a.txt and b.txt.
func rewindSession(t *testing.T, m *scriptedModel, fe Frontend) (*Manager, SessionInfo) {
	t.Helper()
	mgr := newTestManager(t, m, fe)
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(info.Cwd, "a.txt"), fourRegions)
	write(t, filepath.Join(info.Cwd, "b.txt"), "sed me\n")
	return mgr, info
}

func rewindTurn(t *testing.T, mgr *Manager, rec *recorder, sessionID, prompt string) string {
	t.Helper()
	id, err := startID(mgr.StartTurn(sessionID, TurnInput{Prompt: prompt}))
	if err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %s: %+v", id, done)
	}
	return id
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRewindTakesBackPatchesAndCommandsKeepingUserEdits: a turn patches
// a.txt, runs sed -i on b.txt and touches c.txt; the user then edits a
// fourth region of a.txt. The rewind takes the agent's three changes
// back, keeps the user's edit, and the turn leaves the history.
func TestRewindTakesBackPatchesAndCommandsKeepingUserEdits(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	m.add(callTools(patchCall("p1", patchRegion1)), callTools(shellCall("s1", "sed -i s/sed/SED/ b.txt && touch c.txt")), say("m1", "done"))
	mgr, info := rewindSession(t, m, rec)
	a, b, c := filepath.Join(info.Cwd, "a.txt"), filepath.Join(info.Cwd, "b.txt"), filepath.Join(info.Cwd, "c.txt")
	before, _ := mgr.Record(info.SessionID)
	turn := rewindTurn(t, mgr, rec, info.SessionID, "change things")
	if read(t, b) != "SED me\n" {
		t.Fatalf("b.txt = %q", read(t, b))
	}
	write(t, a, strings.Replace(read(t, a), "r4\n", "r4 USER\n", 1))

	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := read(t, a), strings.Replace(fourRegions, "r4\n", "r4 USER\n", 1); got != want {
		t.Errorf("a.txt = %q, want %q", got, want)
	}
	if read(t, b) != "sed me\n" {
		t.Errorf("b.txt = %q", read(t, b))
	}
	if _, err := os.Stat(c); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("c.txt still there (%v)", err)
	}
	slices.Sort(res.Files)
	if !slices.Equal(res.Files, []string{a, b, c}) || len(res.Conflicts) != 0 || len(res.NotRestored) != 0 || !slices.Equal(res.Rewound, []string{turn}) {
		t.Errorf("result %+v", res)
	}
	after, _ := mgr.Record(info.SessionID)
	if len(after.History) != len(before.History)+contextItemCount(after.History) {
		t.Errorf("history after the rewind has %d items: %+v", len(after.History), after.History)
	}
	for _, it := range after.History {
		if strings.Contains(it.Text, "change things") {
			t.Errorf("the rewound prompt is still in the history")
		}
	}
	var rewound []event.Rewound
	for _, ev := range rec.all() {
		if r, ok := ev.Payload.(event.Rewound); ok {
			rewound = append(rewound, r)
		}
	}
	if len(rewound) != 1 || !slices.Equal(rewound[0].TurnIDs, []string{turn}) {
		t.Errorf("rewound events %+v", rewound)
	}
	if _, err := mgr.Rewind(context.Background(), info.SessionID, turn, ""); !errors.Is(err, ErrNoTurn) {
		t.Errorf("a second rewind of the turn: %v", err)
	}
}

// contextItemCount is the number of context items a history starts with
// (AGENTS.md, environment), which a rewind of the first turn keeps.
func contextItemCount(items []model.Item) int {
	n := 0
	for _, it := range items {
		if it.Role == model.RoleUser && strings.HasPrefix(it.Text, "<environment_context>") {
			n++
		}
	}
	return n
}

// TestRewindConflict: the user's edit overlaps the agent's hunk; the file
// stays as it is and is listed, and the other files are rewound.
func TestRewindConflict(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	m.add(callTools(patchCall("p1", patchRegion1)), callTools(shellCall("s1", "sed -i s/sed/SED/ b.txt && echo new > c.txt")), say("m1", "done"))
	mgr, info := rewindSession(t, m, rec)
	a, b, c := filepath.Join(info.Cwd, "a.txt"), filepath.Join(info.Cwd, "b.txt"), filepath.Join(info.Cwd, "c.txt")
	turn := rewindTurn(t, mgr, rec, info.SessionID, "change things")
	userA := strings.Replace(read(t, a), "AGENT\n", "AGENT and USER\n", 1)
	write(t, a, userA)
	write(t, c, "new\nand the user's line\n")
	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "")
	if err != nil {
		t.Fatal(err)
	}
	if read(t, a) != userA || read(t, c) != "new\nand the user's line\n" {
		t.Errorf("conflicting files changed: a.txt %q, c.txt %q", read(t, a), read(t, c))
	}
	if read(t, b) != "sed me\n" {
		t.Errorf("b.txt = %q", read(t, b))
	}
	var conflicts []string
	for _, cf := range res.Conflicts {
		conflicts = append(conflicts, filepath.Base(cf.Path)+": "+cf.Reason)
	}
	slices.Sort(conflicts)
	if len(conflicts) != 2 || !strings.HasPrefix(conflicts[0], "a.txt: changed since") || !strings.Contains(conflicts[1], "c.txt: created by turn") {
		t.Errorf("conflicts %q", conflicts)
	}
}

// TestRewindTurnTwoOfFour rewinds turns 2 to 4, by number.
func TestRewindTurnTwoOfFour(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	for i := 1; i <= 4; i++ {
		n := string(rune('0' + i))
		m.add(callTools(shellCall("s"+n, "echo "+n+" >> a.txt && touch f"+n)), say("m"+n, "turn "+n))
	}
	mgr, info := rewindSession(t, m, rec)
	var turns []string
	var lens []int
	for i := 1; i <= 4; i++ {
		r, _ := mgr.Record(info.SessionID)
		lens = append(lens, len(r.History))
		turns = append(turns, rewindTurn(t, mgr, rec, info.SessionID, "prompt "+string(rune('0'+i))))
	}
	res, err := mgr.Rewind(context.Background(), info.SessionID, "2", "")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(res.Rewound, turns[1:]) {
		t.Errorf("rewound %v, want %v", res.Rewound, turns[1:])
	}
	if got := read(t, filepath.Join(info.Cwd, "a.txt")); got != fourRegions+"1\n" {
		t.Errorf("a.txt = %q", got)
	}
	for i, want := range []bool{true, false, false, false} {
		_, err := os.Stat(filepath.Join(info.Cwd, "f"+string(rune('1'+i))))
		if (err == nil) != want {
			t.Errorf("f%d exists %v", i+1, err == nil)
		}
	}
	r, _ := mgr.Record(info.SessionID)
	if len(r.History) != lens[1] {
		t.Errorf("history has %d items, want %d (as before turn 2)", len(r.History), lens[1])
	}
	if _, err := mgr.Rewind(context.Background(), info.SessionID, turns[2], ""); err == nil {
		t.Error("a turn rewound already was rewound again")
	}
	// The default is the last turn not rewound: turn 1.
	res, err = mgr.Rewind(context.Background(), info.SessionID, "", "")
	if err != nil || !slices.Equal(res.Rewound, turns[:1]) || read(t, filepath.Join(info.Cwd, "a.txt")) != fourRegions {
		t.Errorf("rewind of the last turn: %+v, %v", res, err)
	}
}

// TestRewindAndResubmit: a rewind with a prompt starts a new turn whose
// request no longer carries the rewound one.
func TestRewindAndResubmit(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	m.add(callTools(patchCall("p1", patchRegion1)), say("m1", "first"), say("m2", "second"))
	mgr, info := rewindSession(t, m, rec)
	turn := rewindTurn(t, mgr, rec, info.SessionID, "the first wording")
	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "the second wording")
	if err != nil || res.TurnID == "" || res.TurnID == turn {
		t.Fatalf("rewind: %+v, %v", res, err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("new turn %+v", done)
	}
	var texts []string
	for _, it := range m.request(2).Input {
		texts = append(texts, it.Text)
	}
	all := strings.Join(texts, "\n")
	if strings.Contains(all, "the first wording") || !strings.Contains(all, "the second wording") || strings.Contains(all, "AGENT") {
		t.Errorf("the new turn's request: %s", all)
	}
	if read(t, filepath.Join(info.Cwd, "a.txt")) != fourRegions {
		t.Errorf("a.txt = %q", read(t, filepath.Join(info.Cwd, "a.txt")))
	}
}

// TestRewindSaysWhatIgnoredFoldersLost: a command writes a large file
// into an ignored folder, which is not copied; the rewind says so.
func TestRewindSaysWhatIgnoredFoldersLost(t *testing.T) {
	m := &scriptedModel{}
	rec := newRecorder()
	m.add(callTools(shellCall("s1", "head -c 3000000 /dev/zero > build/big.bin && echo x >> b.txt")), say("m1", "built"))
	mgr, info := rewindSession(t, m, rec)
	write(t, filepath.Join(info.Cwd, ".gitignore"), "build/\n")
	must(t, os.Mkdir(filepath.Join(info.Cwd, "build"), 0o755))
	write(t, filepath.Join(info.Cwd, "build", "old.bin"), strings.Repeat("x", 1<<20))
	turn := rewindTurn(t, mgr, rec, info.SessionID, "build")
	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.NotRestored) != 1 || res.NotRestored[0].Path != filepath.Join(info.Cwd, "build") || !strings.Contains(res.NotRestored[0].Reason, "ignored") {
		t.Errorf("not restored %+v", res.NotRestored)
	}
	if read(t, filepath.Join(info.Cwd, "b.txt")) != "sed me\n" {
		t.Errorf("b.txt = %q", read(t, filepath.Join(info.Cwd, "b.txt")))
	}
	s, _ := mgr.session(info.SessionID)
	if n := s.checkpoints.store.Size(); n > 1<<16 {
		t.Errorf("the checkpoint store holds %d bytes: the ignored folder was copied", n)
	}
}

// bufferFrontend is an editor with open buffers: changes of an open
// document go to its buffer (unsaved), others to disk.
type bufferFrontend struct {
	*recorder
	docs *workspace.Store
	mu   sync.Mutex
	sets []*workspace.ChangeSet
}

func (f *bufferFrontend) ApplyChanges(_ context.Context, cs *workspace.ChangeSet) (bool, error) {
	f.mu.Lock()
	f.sets = append(f.sets, cs)
	f.mu.Unlock()
	for _, c := range cs.Changes {
		if d, ok := f.docs.Document(c.Path); ok {
			if err := f.docs.Change(c.Path, d.Version+1, []workspace.Change{{Text: string(c.NewContent)}}); err != nil {
				return true, err
			}
			continue
		}
		var err error
		if c.Kind == workspace.Delete {
			err = os.Remove(c.Path)
		} else {
			err = os.WriteFile(c.Path, c.NewContent, 0o644)
		}
		if err != nil {
			return true, err
		}
	}
	return true, nil
}

// TestRewindOpenUnsavedBuffer: a.txt is open and the user typed in it
// without saving; the rewind goes through the editor, to the buffer, and
// keeps the unsaved edit; the file on disk is left to the editor.
func TestRewindOpenUnsavedBuffer(t *testing.T) {
	m := &scriptedModel{}
	docs := workspace.NewStore()
	fe := &bufferFrontend{recorder: newRecorder(), docs: docs}
	m.add(callTools(patchCall("p1", patchRegion1)), say("m1", "done"))
	mgr := managerWith(t, m, fe, func(o *Options) { o.Files = docs })
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		t.Fatal(err)
	}
	a := filepath.Join(info.Cwd, "a.txt")
	write(t, a, fourRegions)
	docs.Open(workspace.Doc{Path: a, URI: "file://" + a, Version: 1, Text: fourRegions})
	turn := rewindTurn(t, mgr, fe.recorder, info.SessionID, "change a")
	d, _ := docs.Document(a)
	if !strings.Contains(d.Text, "AGENT") || read(t, a) != fourRegions {
		t.Fatalf("the patch did not go to the buffer: %q, disk %q", d.Text, read(t, a))
	}
	typed := strings.Replace(d.Text, "r4\n", "r4 typed, not saved\n", 1)
	must(t, docs.Change(a, d.Version+1, []workspace.Change{{Text: typed}}))
	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "")
	if err != nil || len(res.Files) != 1 {
		t.Fatalf("rewind: %+v, %v", res, err)
	}
	d, _ = docs.Document(a)
	if want := strings.Replace(fourRegions, "r4\n", "r4 typed, not saved\n", 1); d.Text != want {
		t.Errorf("buffer after the rewind %q, want %q", d.Text, want)
	}
	if read(t, a) != fourRegions {
		t.Errorf("the rewind wrote the file behind the editor: %q", read(t, a))
	}
	last := fe.sets[len(fe.sets)-1]
	if len(last.Changes) != 1 || string(last.Changes[0].OldContent) != typed {
		t.Errorf("the rewind's change was planned against %q, not the buffer", last.Changes[0].OldContent)
	}
}

// TestRewindNeverWritesThroughALinkOutOfTheWorkspace: a turn's command
// empties and removes the folder keys and puts a link to a folder outside the
// workspace in its place. A rewind that followed the link would create
// keys/f, with its old content, outside the workspace; it leaves it alone
// and says why.
func TestRewindNeverWritesThroughALinkOutOfTheWorkspace(t *testing.T) {
	outside := t.TempDir()
	m := &scriptedModel{}
	rec := newRecorder()
	m.add(callTools(shellCall("s1", "rm keys/f && rmdir keys && ln -s "+outside+" keys")), say("m1", "done"))
	mgr, info := rewindSession(t, m, rec)
	os.Mkdir(filepath.Join(info.Cwd, "keys"), 0o755)
	write(t, filepath.Join(info.Cwd, "keys", "f"), "B\n")
	turn := rewindTurn(t, mgr, rec, info.SessionID, "swap the folder")
	res, err := mgr.Rewind(context.Background(), info.SessionID, turn, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(outside, "f")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the rewind wrote outside the workspace (%v)", err)
	}
	refused := false
	for _, n := range res.NotRestored {
		if n.Path == filepath.Join(info.Cwd, "keys", "f") && strings.Contains(n.Reason, "outside the workspace") {
			refused = true
		}
	}
	if !refused {
		t.Errorf("keys/f not reported as left alone: %+v (files %q, conflicts %+v)", res.NotRestored, res.Files, res.Conflicts)
	}
}
