package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

const e2ePatch = `*** Begin Patch
*** Update File: clean.txt
@@
 alpha
-beta
+BETA
*** Update File: dirty.txt
@@
 one
-two
+TWO
*** Add File: notes/new.txt
+created
*** End Patch`

func TestPatchLandsInTheEditorAndUndoes(t *testing.T) {
	s := startWith(t, nil, editor.Config{}, editor.Options{Events: true, ApplyEdit: true, DocumentChanges: true},
		fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", e2ePatch)),
		fakemodel.Say("patched"),
	)
	clean, dirty := filepath.Join(s.dir, "clean.txt"), filepath.Join(s.dir, "dirty.txt")
	os.WriteFile(clean, []byte("alpha\nbeta\n"), 0o644)
	os.WriteFile(dirty, []byte("one\ntwo\n"), 0o644)
	cleanURI, dirtyURI := "file://"+clean, "file://"+dirty
	if err := s.ed.Open(s.ctx, cleanURI, "plaintext", "alpha\nbeta\n"); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Open(s.ctx, dirtyURI, "plaintext", "one\ntwo\n"); err != nil {
		t.Fatal(err)
	}
	// The user types in dirty.txt without saving.
	end := protocol.Position{Line: 2}
	if err := s.ed.Change(s.ctx, dirtyURI, editor.Change{Range: &protocol.Range{Start: end, End: end}, Text: "three (unsaved)\n"}); err != nil {
		t.Fatal(err)
	}

	turn := s.startTurn(map[string]any{"prompt": "patch"})
	done := s.wait(turn.TurnID)
	if done.Status != "completed" || !strings.Contains(done.Diff, "+BETA") || !strings.Contains(done.Diff, "+++ b/notes/new.txt") {
		t.Fatalf("turn %+v", done)
	}
	if got, _, _ := s.ed.Text(cleanURI); got != "alpha\nBETA\n" {
		t.Errorf("clean buffer %q", got)
	}
	if got, _ := os.ReadFile(clean); string(got) != "alpha\nBETA\n" {
		t.Errorf("clean file on disk %q: a clean buffer's file should follow it", got)
	}
	if got, _, _ := s.ed.Text(dirtyURI); got != "one\nTWO\nthree (unsaved)\n" {
		t.Errorf("dirty buffer %q", got)
	}
	if got, _ := os.ReadFile(dirty); string(got) != "one\ntwo\n" {
		t.Errorf("dirty file on disk %q: the user's unsaved work must stay theirs to save", got)
	}
	if got, _ := os.ReadFile(filepath.Join(s.dir, "notes", "new.txt")); string(got) != "created\n" {
		t.Errorf("new file %q", got)
	}
	if n := len(s.ed.Edits()); n != 1 {
		t.Errorf("%d workspace/applyEdit requests, want 1", n)
	}
	body := string(s.model.Requests()[1].Body)
	if !strings.Contains(body, "Success. Updated the following files:") || !strings.Contains(body, "dirty.txt has unsaved changes") {
		t.Errorf("the model was not told what happened: %s", body)
	}
	var fc editor.Event
	for _, ev := range s.events(turn.TurnID) {
		if ev.Type == "fileChange" {
			fc = ev
		}
	}
	if fc.Status != "applied" || len(fc.Changes) != 3 {
		t.Errorf("fileChange %+v", fc)
	}

	var undo struct {
		Files []string `json:"files"`
	}
	if err := s.ed.Request(s.ctx, "agent/undoTurn", map[string]any{"sessionId": turn.SessionID, "turnId": turn.TurnID}, &undo); err != nil {
		t.Fatal(err)
	}
	if len(undo.Files) != 3 {
		t.Errorf("undo restored %v", undo.Files)
	}
	if got, _, _ := s.ed.Text(cleanURI); got != "alpha\nbeta\n" {
		t.Errorf("clean buffer after undo %q", got)
	}
	if got, _, _ := s.ed.Text(dirtyURI); got != "one\ntwo\nthree (unsaved)\n" {
		t.Errorf("dirty buffer after undo %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "notes", "new.txt")); err == nil {
		t.Error("undo left the created file")
	}
	if err := s.ed.Request(s.ctx, "agent/undoTurn", map[string]any{"sessionId": turn.SessionID, "turnId": turn.TurnID}, &undo); err == nil {
		t.Error("a second undo was accepted")
	}
}

func TestPatchRejectedByTheEditorChangesNothing(t *testing.T) {
	cfg := editor.Config{ApplyEdit: func(_ context.Context, _ *protocol.ApplyWorkspaceEditParams) (*protocol.ApplyWorkspaceEditResult, error) {
		reason := "the document changed"
		return &protocol.ApplyWorkspaceEditResult{Applied: false, FailureReason: &reason}, nil
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true, ApplyEdit: true, DocumentChanges: true},
		fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", e2ePatch)),
		fakemodel.Say("ok"),
	)
	clean, dirty := filepath.Join(s.dir, "clean.txt"), filepath.Join(s.dir, "dirty.txt")
	os.WriteFile(clean, []byte("alpha\nbeta\n"), 0o644)
	os.WriteFile(dirty, []byte("one\ntwo\n"), 0o644)
	if err := s.ed.Open(s.ctx, "file://"+clean, "plaintext", "alpha\nbeta\n"); err != nil {
		t.Fatal(err)
	}
	turn := s.startTurn(map[string]any{"prompt": "patch"})
	s.wait(turn.TurnID)
	if got, _ := os.ReadFile(dirty); string(got) != "one\ntwo\n" {
		t.Errorf("dirty.txt on disk %q: a rejected change set must change nothing", got)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "notes")); err == nil {
		t.Error("the rejected change set left a folder behind")
	}
	if body := string(s.model.Requests()[1].Body); !strings.Contains(body, "the document changed") {
		t.Errorf("the model was not told why: %s", body)
	}
}

// A model without freeform tools (on Chat Completions, or on the Responses
// API a model not trained on them) gets apply_patch as a function whose
// description carries the patch grammar; its function call edits the file,
// and goes back to it on the next request as the function call it made.
func TestApplyPatchAsAFunction(t *testing.T) {
	const patch = "*** Begin Patch\n*** Add File: hello.txt\n+hello\n*** End Patch"
	args, _ := json.Marshal(map[string]string{"input": patch})
	for _, tc := range []struct {
		wire, model string
		// callBack finds the call in the second request's body.
		callBack string
	}{
		{"chat", "llama3", `"tool_calls":[{"id":"p1","function":{"arguments":` + strconv.Quote(string(args)) + `,"name":"apply_patch"}`},
		{"responses", "gpt-4.1", `{"arguments":` + strconv.Quote(string(args)) + `,"call_id":"p1","name":"apply_patch","type":"function_call"}`},
	} {
		t.Run(tc.wire, func(t *testing.T) {
			s := start(t, []string{"AGENT_LS_WIRE_API=" + tc.wire, "AGENT_LS_MODEL=" + tc.model},
				fakemodel.Answer(fakemodel.FunctionCall("p1", "apply_patch", string(args))),
				fakemodel.Say("added"),
			)
			turn := s.startTurn(map[string]any{"prompt": "add hello.txt"})
			if done := s.wait(turn.TurnID); done.Status != "completed" {
				t.Fatalf("turn %+v", done)
			}
			if got, _ := os.ReadFile(filepath.Join(s.dir, "hello.txt")); string(got) != "hello\n" {
				t.Errorf("hello.txt holds %q", got)
			}
			reqs := s.model.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model requests", len(reqs))
			}
			var first struct {
				Tools []struct {
					Type     string `json:"type"`
					Name     string `json:"name"`
					Desc     string `json:"description"`
					Function struct {
						Name string `json:"name"`
						Desc string `json:"description"`
					} `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(reqs[0].Body, &first); err != nil {
				t.Fatal(err)
			}
			var desc string
			for _, tool := range first.Tools {
				if tool.Name == "apply_patch" && tool.Type == "function" {
					desc = tool.Desc
				}
				if tool.Function.Name == "apply_patch" {
					desc = tool.Function.Desc
				}
			}
			if !strings.Contains(desc, "lark grammar") || !strings.Contains(desc, `begin_patch: "*** Begin Patch" LF`) {
				t.Errorf("apply_patch offered without its grammar: %q", desc)
			}
			if body := string(reqs[1].Body); !strings.Contains(body, tc.callBack) {
				t.Errorf("the second request does not carry the call as %s:\n%s", tc.callBack, body)
			}
		})
	}
}
