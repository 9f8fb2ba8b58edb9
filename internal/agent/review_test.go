package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// answeringReviewer answers every review with answer(req).
type answeringReviewer struct {
	reqs   []*ReviewRequest
	answer func(*ReviewRequest) (*ReviewAnswer, error)
}

func (r *answeringReviewer) ReviewChanges(_ context.Context, req *ReviewRequest) (*ReviewAnswer, error) {
	r.reqs = append(r.reqs, req)
	return r.answer(req)
}

// twentyLines is a file whose lines 2 and 19 the review patch changes:
// two hunks.
func twentyLines() string {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

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
*** Add File: new.txt
+hello
*** End Patch`

func reviewTurn(t *testing.T, answer func(*ReviewRequest) (*ReviewAnswer, error)) (*recorder, *scriptedModel, *answeringReviewer, string, string) {
	t.Helper()
	m := &scriptedModel{}
	m.add(callTools(model.Item{Type: model.ItemCustomToolCall, ID: "ct1", CallID: "p1", Name: "apply_patch", Input: reviewPatch}), say("m", "done"))
	rec := newRecorder()
	rv := &answeringReviewer{answer: answer}
	mgr := managerWith(t, m, rec, func(o *Options) { o.Reviewer = rv })
	info, _ := mgr.NewSession(SessionOptions{})
	a := filepath.Join(info.Cwd, "a.txt")
	write(t, a, twentyLines())
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "edit"}); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	return rec, m, rv, info.Cwd, toolOutput(m.request(1))
}

func toolOutput(req *model.Request) string {
	for _, it := range req.Input {
		if it.Type == model.ItemCustomToolCallOutput || it.Type == model.ItemFunctionCallOutput {
			return it.Output
		}
	}
	return ""
}

func fileChanges(rec *recorder) []event.FileChange {
	var out []event.FileChange
	for _, ev := range rec.all() {
		if fc, ok := ev.Payload.(event.FileChange); ok {
			out = append(out, fc)
		}
	}
	return out
}

func TestReviewAppliesOnlyTheAcceptedHunks(t *testing.T) {
	rec, _, rv, cwd, out := reviewTurn(t, func(req *ReviewRequest) (*ReviewAnswer, error) {
		return &ReviewAnswer{Decision: ReviewAccept, Comment: "keep line 19 as it is",
			Hunks: []HunkDecision{{URI: req.Changes[0].URI, Index: 1, Accept: false}}}, nil
	})
	if len(rv.reqs) != 1 {
		t.Fatalf("%d review requests", len(rv.reqs))
	}
	req := rv.reqs[0]
	if req.CallID != "p1" || len(req.Changes) != 2 || req.Changes[0].Hunks != 2 || req.Changes[1].Hunks != 1 ||
		req.Changes[1].Kind != event.ChangeAdd || strings.Count(req.Diff, "\n@@ ") != 3 {
		t.Fatalf("request %+v", req)
	}
	got, _ := os.ReadFile(filepath.Join(cwd, "a.txt"))
	if want := strings.Replace(twentyLines(), "line 2\n", "LINE 2\n", 1); string(got) != want {
		t.Errorf("a.txt = %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "new.txt")); err != nil || string(b) != "hello\n" {
		t.Errorf("new.txt = %q, %v", b, err)
	}
	fcs := fileChanges(rec)
	if len(fcs) != 2 || fcs[0].Status != event.ChangeProposed || fcs[1].Status != event.ChangeApplied ||
		!strings.Contains(fcs[0].Diff, "+LINE 19") || strings.Contains(fcs[1].Diff, "LINE 19") || !strings.Contains(fcs[1].Diff, "+LINE 2") {
		t.Errorf("fileChange events %+v", fcs)
	}
	for _, want := range []string{
		"Success.",
		"accepted only part of it",
		"- a.txt: accepted hunk(s) @@ -1,5 +1,5 @@; rejected hunk(s) @@ -16,5 +16,5 @@ (not applied)",
		"- new.txt: accepted",
		"-line 19\n+LINE 19",
		"The user's comment: keep line 19 as it is",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the model was not told %q:\n%s", want, out)
		}
	}
}

func TestReviewRejectsEverything(t *testing.T) {
	rec, _, _, cwd, out := reviewTurn(t, func(*ReviewRequest) (*ReviewAnswer, error) {
		return &ReviewAnswer{Decision: ReviewReject}, nil
	})
	if got, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(got) != twentyLines() {
		t.Errorf("a.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(cwd, "new.txt")); err == nil {
		t.Error("new.txt was created")
	}
	if fcs := fileChanges(rec); len(fcs) != 2 || fcs[1].Status != event.ChangeRejected {
		t.Errorf("fileChange events %+v", fcs)
	}
	if !strings.HasPrefix(out, "rejected: the user reviewed this change and rejected all of it; nothing was changed.") ||
		!strings.Contains(out, "ask the user") {
		t.Errorf("output %q", out)
	}
}

func TestReviewAcceptsEverything(t *testing.T) {
	_, _, _, cwd, out := reviewTurn(t, func(*ReviewRequest) (*ReviewAnswer, error) {
		return &ReviewAnswer{Decision: ReviewAccept}, nil
	})
	if got, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); !strings.Contains(string(got), "LINE 2\n") || !strings.Contains(string(got), "LINE 19\n") {
		t.Errorf("a.txt = %q", got)
	}
	if strings.Contains(out, "review") {
		t.Errorf("an accepted change is reported as reviewed: %q", out)
	}
}

func TestReviewAnswersThatAreNotValid(t *testing.T) {
	cs := &workspace.ChangeSet{Changes: []workspace.FileChange{
		{Kind: workspace.Update, Path: "/w/a.txt", OldContent: []byte(twentyLines()), NewContent: []byte(strings.Replace(twentyLines(), "line 3\n", "x\n", 1))},
	}}
	a := fileURI("/w/a.txt")
	for _, tc := range []struct {
		name string
		ans  *ReviewAnswer
		want string
	}{
		{"no answer", nil, "no answer"},
		{"no decision", &ReviewAnswer{}, "neither"},
		{"another decision", &ReviewAnswer{Decision: "allowOnce"}, "neither"},
		{"unknown file", &ReviewAnswer{Decision: ReviewAccept, Hunks: []HunkDecision{{URI: fileURI("/etc/passwd"), Accept: true}}}, "no such file"},
		{"index past the end", &ReviewAnswer{Decision: ReviewAccept, Hunks: []HunkDecision{{URI: a, Index: 1}}}, "has 1 hunk(s)"},
		{"negative index", &ReviewAnswer{Decision: ReviewAccept, Hunks: []HunkDecision{{URI: a, Index: -1}}}, "has 1 hunk(s)"},
		{"twice", &ReviewAnswer{Decision: ReviewReject, Hunks: []HunkDecision{{URI: a, Accept: true}, {URI: a, Accept: false}}}, "twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decide(cs, tc.ans, "/w")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("decide = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestReviewThatFails(t *testing.T) {
	rec, _, _, cwd, out := reviewTurn(t, func(*ReviewRequest) (*ReviewAnswer, error) {
		return &ReviewAnswer{Decision: ReviewAccept, Hunks: []HunkDecision{{URI: "file:///nowhere", Accept: true}}}, nil
	})
	if got, _ := os.ReadFile(filepath.Join(cwd, "a.txt")); string(got) != twentyLines() {
		t.Errorf("a.txt = %q", got)
	}
	if fcs := fileChanges(rec); len(fcs) != 2 || fcs[1].Status != event.ChangeRejected {
		t.Errorf("fileChange events %+v", fcs)
	}
	if !strings.Contains(out, "the editor's answer to the review of this change was invalid") || !strings.Contains(out, "nothing was changed") {
		t.Errorf("output %q", out)
	}
}
