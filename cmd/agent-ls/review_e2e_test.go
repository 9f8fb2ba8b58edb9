package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// reviewPatch changes lines 2 and 19 of twentyLines (two hunks) and adds a
// file (one hunk).
const reviewPatch = `*** Begin Patch
*** Update File: a.txt
@@
 line 1
-line 2
+LINE 2
 line 3
@@
 line 18
-line 19
+LINE 19
 line 20
*** Add File: b.txt
+new file
*** End Patch`

func twentyLines() string {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// reviewRequest is agent/requestReview's params as a client reads them.
type reviewRequest struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	CallID    string `json:"callId"`
	Changes   []struct {
		URI   string `json:"uri"`
		Kind  string `json:"kind"`
		Hunks int    `json:"hunks"`
	} `json:"changes"`
	Diff string `json:"diff"`
}

// reviewer answers agent/requestReview with answer, and keeps what it
// was asked.
type reviewer struct {
	mu     sync.Mutex
	asked  []reviewRequest
	answer func(reviewRequest) any
}

func (r *reviewer) config() editor.Config {
	return editor.Config{Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
		if method != "agent/requestReview" {
			return nil, fmt.Errorf("unexpected %s", method)
		}
		var req reviewRequest
		if err := json.Unmarshal(params, &req); err != nil {
			return nil, err
		}
		r.mu.Lock()
		r.asked = append(r.asked, req)
		r.mu.Unlock()
		return r.answer(req), nil
	}}
}

// startReview runs a server whose editor reviews changes and has a.txt
// open, and a turn that patches it with reviewPatch.
func startReview(t *testing.T, cfg editor.Config) (*session, started, string) {
	t.Helper()
	s := startWith(t, nil, cfg, editor.Options{Events: true, Review: true, ApplyEdit: true, DocumentChanges: true},
		fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", reviewPatch)),
		fakemodel.Say("done"),
	)
	a := filepath.Join(s.dir, "a.txt")
	os.WriteFile(a, []byte(twentyLines()), 0o644)
	if err := s.ed.Open(s.ctx, "file://"+a, "plaintext", twentyLines()); err != nil {
		t.Fatal(err)
	}
	return s, s.startTurn(map[string]any{"prompt": "patch"}), a
}

func fileChangeStatuses(evs []editor.Event) string {
	var out []string
	for _, ev := range evs {
		if ev.Type == "fileChange" {
			out = append(out, ev.Status)
		}
	}
	return strings.Join(out, ",")
}

func TestReviewAcceptOneHunkRejectTheOther(t *testing.T) {
	var s *session
	var sawProposal bool
	r := &reviewer{}
	r.answer = func(req reviewRequest) any {
		// The proposal came first, with the same diff.
		for _, ev := range s.ed.Events() {
			if ev.Type == "fileChange" && ev.Status == "proposed" && ev.CallID == req.CallID && ev.Diff == req.Diff {
				sawProposal = true
			}
		}
		return map[string]any{"decision": "reject", "comment": "keep line 19",
			"hunks": []map[string]any{{"uri": req.Changes[0].URI, "index": 0, "accept": true}}}
	}
	s, turn, a := startReview(t, r.config())
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.asked) != 1 {
		t.Fatalf("asked %d times", len(r.asked))
	}
	req := r.asked[0]
	if req.SessionID != turn.SessionID || req.TurnID != turn.TurnID || req.CallID != "p1" || len(req.Changes) != 2 ||
		req.Changes[0].URI != "file://"+a || req.Changes[0].Hunks != 2 || req.Changes[1].Kind != "add" || req.Changes[1].Hunks != 1 {
		t.Fatalf("review request %+v", req)
	}
	if !sawProposal {
		t.Error("no fileChange proposed event before the review request")
	}
	want := strings.Replace(twentyLines(), "line 2\n", "LINE 2\n", 1)
	if got, _, _ := s.ed.Text("file://" + a); got != want {
		t.Errorf("buffer %q", got)
	}
	if got, _ := os.ReadFile(a); string(got) != want {
		t.Errorf("a.txt on disk %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "b.txt")); err == nil {
		t.Error("b.txt, rejected by the decision, was created")
	}
	if got := fileChangeStatuses(s.events(turn.TurnID)); got != "proposed,applied" {
		t.Errorf("fileChange statuses %s", got)
	}
	body := string(s.model.Requests()[1].Body)
	for _, w := range []string{
		"accepted only part of it",
		"a.txt: accepted hunk(s) @@ -1,5 +1,5 @@; rejected hunk(s) @@ -16,5 +16,5 @@ (not applied)",
		"b.txt: rejected, not created",
		"-line 19\\n+LINE 19",
		"The user's comment: keep line 19",
	} {
		if !strings.Contains(body, w) {
			t.Errorf("the model was not told %q: %s", w, body)
		}
	}
}

func TestReviewRejectAllAndAcceptAll(t *testing.T) {
	t.Run("reject", func(t *testing.T) {
		r := &reviewer{answer: func(reviewRequest) any { return map[string]any{"decision": "reject", "comment": "use a constant"} }}
		s, turn, a := startReview(t, r.config())
		s.wait(turn.TurnID)
		if got, _ := os.ReadFile(a); string(got) != twentyLines() {
			t.Errorf("a.txt %q", got)
		}
		if n := len(s.ed.Edits()); n != 0 {
			t.Errorf("%d edits sent", n)
		}
		if got := fileChangeStatuses(s.events(turn.TurnID)); got != "proposed,rejected" {
			t.Errorf("fileChange statuses %s", got)
		}
		body := string(s.model.Requests()[1].Body)
		if !strings.Contains(body, "rejected all of it; nothing was changed") || !strings.Contains(body, "The user's comment: use a constant") {
			t.Errorf("the model was not told: %s", body)
		}
	})
	t.Run("accept", func(t *testing.T) {
		r := &reviewer{answer: func(reviewRequest) any { return map[string]any{"decision": "accept"} }}
		s, turn, a := startReview(t, r.config())
		s.wait(turn.TurnID)
		if got, _ := os.ReadFile(a); !strings.Contains(string(got), "LINE 2\n") || !strings.Contains(string(got), "LINE 19\n") {
			t.Errorf("a.txt %q", got)
		}
		if got, _ := os.ReadFile(filepath.Join(s.dir, "b.txt")); string(got) != "new file\n" {
			t.Errorf("b.txt %q", got)
		}
		if body := string(s.model.Requests()[1].Body); !strings.Contains(body, "Success.") || strings.Contains(body, "reviewed") {
			t.Errorf("the model was told: %s", body)
		}
	})
}

// A client that names hunks the change does not have gets nothing
// applied: a wrong answer must not apply a guess.
func TestReviewAnswerForUnknownHunks(t *testing.T) {
	for name, hunk := range map[string]map[string]any{
		"unknown uri":   {"uri": "file:///etc/passwd", "index": 0, "accept": true},
		"unknown index": {"uri": "", "index": 2, "accept": true},
	} {
		t.Run(name, func(t *testing.T) {
			r := &reviewer{answer: func(req reviewRequest) any {
				if hunk["uri"] == "" {
					hunk["uri"] = req.Changes[0].URI
				}
				return map[string]any{"decision": "accept", "hunks": []any{hunk}}
			}}
			s, turn, a := startReview(t, r.config())
			s.wait(turn.TurnID)
			if got, _ := os.ReadFile(a); string(got) != twentyLines() {
				t.Errorf("a.txt %q", got)
			}
			if _, err := os.Stat(filepath.Join(s.dir, "b.txt")); err == nil {
				t.Error("b.txt was created")
			}
			if body := string(s.model.Requests()[1].Body); !strings.Contains(body, "answer to the review of this change was invalid") {
				t.Errorf("the model was not told: %s", body)
			}
		})
	}
}

func TestUnansweredReviewEndsWithInterrupt(t *testing.T) {
	s, turn, a := startReview(t, editor.Config{NeverAnswer: []string{"agent/requestReview"}})
	if _, err := s.ed.WaitEvent(s.ctx, func(ev editor.Event) bool { return ev.Type == "fileChange" && ev.Status == "proposed" }); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Request(s.ctx, "agent/interrupt", map[string]any{"sessionId": turn.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	if done := s.wait(turn.TurnID); done.Status != "interrupted" {
		t.Fatalf("turn %+v", done)
	}
	if got, _ := os.ReadFile(a); string(got) != twentyLines() {
		t.Errorf("a.txt %q", got)
	}
	// The turn's end closes the proposal.
	if got := fileChangeStatuses(s.events(turn.TurnID)); got != "proposed" {
		t.Errorf("fileChange statuses %s", got)
	}
	next := s.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "again"})
	if done := s.wait(next.TurnID); done.Status != "completed" {
		t.Fatalf("next turn %+v", done)
	}
}

// The user types in the file while the review is open: accepting the
// change then must not overwrite what they typed.
func TestReviewOfAFileTheUserChangedMeanwhile(t *testing.T) {
	var s *session
	var a string
	r := &reviewer{answer: func(req reviewRequest) any {
		at := protocol.Position{Line: 9}
		if err := s.ed.Change(s.ctx, "file://"+a, editor.Change{Range: &protocol.Range{Start: at, End: at}, Text: "typed by the user\n"}); err != nil {
			panic(err)
		}
		return map[string]any{"decision": "accept"}
	}}
	s = startWith(t, nil, r.config(), editor.Options{Events: true, Review: true, ApplyEdit: true, DocumentChanges: true},
		fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", reviewPatch)),
		fakemodel.Say("done"),
	)
	a = filepath.Join(s.dir, "a.txt")
	os.WriteFile(a, []byte(twentyLines()), 0o644)
	if err := s.ed.Open(s.ctx, "file://"+a, "plaintext", twentyLines()); err != nil {
		t.Fatal(err)
	}
	turn := s.startTurn(map[string]any{"prompt": "patch"})
	s.wait(turn.TurnID)
	typed := strings.Replace(twentyLines(), "line 10\n", "typed by the user\nline 10\n", 1)
	if got, _, _ := s.ed.Text("file://" + a); got != typed {
		t.Errorf("buffer %q", got)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "b.txt")); err == nil {
		t.Error("b.txt was created though the change set was refused")
	}
	if got := fileChangeStatuses(s.events(turn.TurnID)); got != "proposed,rejected" {
		t.Errorf("fileChange statuses %s", got)
	}
	if body := string(s.model.Requests()[1].Body); !strings.Contains(body, "read the file again and redo the change") {
		t.Errorf("the model was not told: %s", body)
	}
}
