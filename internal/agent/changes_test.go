package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// editingFrontend applies change sets itself, like an editor, or refuses
// them.
type editingFrontend struct {
	*recorder
	reject string
	sets   []*workspace.ChangeSet
}

func (f *editingFrontend) ApplyChanges(_ context.Context, cs *workspace.ChangeSet) (bool, error) {
	f.sets = append(f.sets, cs)
	if f.reject != "" {
		return true, &workspace.RejectedError{Reason: f.reject}
	}
	for _, c := range cs.Changes {
		switch c.Kind {
		case workspace.Delete:
			os.Remove(c.Path)
		case workspace.Move:
			os.Remove(c.Path)
			os.MkdirAll(filepath.Dir(c.NewPath), 0o755)
			os.WriteFile(c.NewPath, c.NewContent, 0o644)
		default:
			os.MkdirAll(filepath.Dir(c.Path), 0o755)
			os.WriteFile(c.Path, c.NewContent, 0o644)
		}
	}
	return true, nil
}

const testPatch = `*** Begin Patch
*** Update File: a.txt
@@
 one
-two
+TWO
 three
*** Add File: sub/new.txt
+hello
*** End Patch`

func patchTurn(t *testing.T, fe Frontend) (*Manager, *scriptedModel, SessionInfo, string) {
	t.Helper()
	m := &scriptedModel{}
	m.add(callTools(model.Item{Type: model.ItemCustomToolCall, ID: "ct1", CallID: "p1", Name: "apply_patch", Input: testPatch}), say("m", "patched"))
	mgr := newTestManager(t, m, fe)
	info, _ := mgr.NewSession(SessionOptions{})
	write(t, filepath.Join(info.Cwd, "a.txt"), "one\ntwo\nthree\n")
	return mgr, m, info, filepath.Join(info.Cwd, "a.txt")
}

func TestPatchAppliedThroughTheFrontendAndUndone(t *testing.T) {
	fe := &editingFrontend{recorder: newRecorder()}
	mgr, m, info, a := patchTurn(t, fe)
	turnID, _ := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "edit"}))
	done := fe.wait(t)
	if done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	if got, _ := os.ReadFile(a); string(got) != "one\nTWO\nthree\n" {
		t.Errorf("a.txt = %q", got)
	}
	var fc event.FileChange
	for _, ev := range fe.all() {
		if p, ok := ev.Payload.(event.FileChange); ok {
			fc = p
		}
	}
	if fc.Status != event.ChangeApplied || len(fc.Changes) != 2 || fc.Changes[0].Kind != event.ChangeUpdate || fc.Changes[0].Additions != 1 ||
		fc.Changes[0].Deletions != 1 || fc.Changes[1].Kind != event.ChangeAdd || !strings.HasPrefix(fc.Changes[1].URI, "file://") {
		t.Errorf("fileChange %+v", fc)
	}
	for _, want := range []string{"--- a/a.txt", "+TWO", "--- /dev/null", "+++ b/sub/new.txt"} {
		if !strings.Contains(done.Diff, want) {
			t.Errorf("turn diff lacks %q:\n%s", want, done.Diff)
		}
	}
	out := ""
	for _, it := range m.request(1).Input {
		if it.Type == model.ItemCustomToolCallOutput {
			out = it.Output
		}
	}
	if !strings.Contains(out, "Success. Updated the following files:") || !strings.Contains(out, "A sub/new.txt") {
		t.Errorf("apply_patch output %q", out)
	}

	// The user edits a.txt: undo refuses, naming it.
	write(t, a, "user edit\n")
	if _, err := mgr.UndoTurn(context.Background(), info.SessionID, turnID); err == nil || !strings.Contains(err.Error(), "a.txt") {
		t.Fatalf("undo after a user edit: %v", err)
	}
	write(t, a, "one\nTWO\nthree\n")
	paths, err := mgr.UndoTurn(context.Background(), info.SessionID, turnID)
	if err != nil || len(paths) != 2 {
		t.Fatalf("undo: %v %v", paths, err)
	}
	if got, _ := os.ReadFile(a); string(got) != "one\ntwo\nthree\n" {
		t.Errorf("a.txt after undo = %q", got)
	}
	if _, err := os.Stat(filepath.Join(info.Cwd, "sub", "new.txt")); err == nil {
		t.Error("undo left the added file")
	}
	if _, err := mgr.UndoTurn(context.Background(), info.SessionID, turnID); err == nil {
		t.Error("a second undo was accepted")
	}
}

func TestPatchRejectedByTheEditor(t *testing.T) {
	fe := &editingFrontend{recorder: newRecorder(), reject: "document version moved on"}
	mgr, m, info, a := patchTurn(t, fe)
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "edit"})
	if done := fe.wait(t); done.Status != event.StatusCompleted || done.Diff != "" {
		t.Fatalf("turn %+v", done)
	}
	if got, _ := os.ReadFile(a); string(got) != "one\ntwo\nthree\n" {
		t.Errorf("a.txt = %q", got)
	}
	out := ""
	for _, it := range m.request(1).Input {
		if it.Type == model.ItemCustomToolCallOutput {
			out = it.Output
		}
	}
	if !strings.Contains(out, "document version moved on") || !strings.Contains(out, "read the file again") {
		t.Errorf("the model was told %q", out)
	}
	var statuses []string
	for _, ev := range fe.all() {
		switch p := ev.Payload.(type) {
		case event.FileChange:
			statuses = append(statuses, "fileChange:"+string(p.Status))
		case event.ToolResult:
			statuses = append(statuses, "toolResult:"+string(p.Status))
		}
	}
	if strings.Join(statuses, ",") != "fileChange:rejected,toolResult:rejected" {
		t.Errorf("statuses %v", statuses)
	}
}

func TestPatchThatDoesNotApplyChangesNothing(t *testing.T) {
	fe := &editingFrontend{recorder: newRecorder()}
	m := &scriptedModel{}
	bad := strings.Replace(testPatch, " three", " four", 1)
	m.add(callTools(model.Item{Type: model.ItemCustomToolCall, ID: "ct1", CallID: "p1", Name: "apply_patch", Input: bad}), say("m", "hm"))
	mgr := newTestManager(t, m, fe)
	info, _ := mgr.NewSession(SessionOptions{})
	write(t, filepath.Join(info.Cwd, "a.txt"), "one\ntwo\nthree\n")
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "edit"})
	fe.wait(t)
	if len(fe.sets) != 0 {
		t.Errorf("a failed patch reached the editor: %+v", fe.sets)
	}
	out := ""
	for _, it := range m.request(1).Input {
		if it.Type == model.ItemCustomToolCallOutput {
			out = it.Output
		}
	}
	if !strings.HasPrefix(out, "apply_patch verification failed: Failed to find expected lines") {
		t.Errorf("the model was told %q", out)
	}
}
