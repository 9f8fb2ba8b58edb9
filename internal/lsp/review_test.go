package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

func TestReviewerOnlyForClientsThatReview(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{Events: true, Approvals: true})
	if h.agent.cfg.Reviewer != nil {
		t.Error("a client without experimental.agent.review got a reviewer")
	}
}

func TestReviewChangesAsksTheEditor(t *testing.T) {
	var got json.RawMessage
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.Request = func(_ context.Context, method string, params json.RawMessage) (any, error) {
			if method != methodRequestReview {
				return nil, errors.New("unexpected " + method)
			}
			got = params
			return map[string]any{"decision": "reject", "comment": "no", "hunks": []any{map[string]any{"uri": "file:///w/a", "index": 1, "accept": true}}}, nil
		}
	})
	h.initialize(editor.Options{Events: true, Review: true})
	rv := h.agent.cfg.Reviewer
	if rv == nil {
		t.Fatal("no reviewer for a client with experimental.agent.review")
	}
	req := &agent.ReviewRequest{SessionID: "s1", TurnID: "t1", CallID: "c1", Diff: "--- a/a\n",
		Changes: []agent.ReviewFile{{FileChangeEntry: event.FileChangeEntry{URI: "file:///w/a", Kind: event.ChangeUpdate, Additions: 1}, Hunks: 2}}}
	ans, err := rv.ReviewChanges(h.ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if ans.Decision != agent.ReviewReject || ans.Comment != "no" || len(ans.Hunks) != 1 || ans.Hunks[0] != (agent.HunkDecision{URI: "file:///w/a", Index: 1, Accept: true}) {
		t.Errorf("answer %+v", ans)
	}
	var p map[string]any
	json.Unmarshal(got, &p)
	ch := p["changes"].([]any)[0].(map[string]any)
	if p["sessionId"] != "s1" || p["turnId"] != "t1" || p["callId"] != "c1" || p["diff"] != "--- a/a\n" ||
		ch["uri"] != "file:///w/a" || ch["kind"] != "update" || ch["hunks"] != 2.0 || ch["additions"] != 1.0 {
		t.Errorf("params %s", got)
	}
}

// The turn's end cancels a review the editor does not answer, and the
// editor hears of it.
func TestReviewChangesEndsWithTheTurn(t *testing.T) {
	cancelled := make(chan struct{})
	asked := make(chan struct{})
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.Request = func(ctx context.Context, method string, _ json.RawMessage) (any, error) {
			close(asked)
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		}
	})
	h.initialize(editor.Options{Events: true, Review: true})
	ctx, cancel := context.WithCancel(h.ctx)
	go func() { <-asked; cancel() }()
	if _, err := h.agent.cfg.Reviewer.ReviewChanges(ctx, &agent.ReviewRequest{SessionID: "s1"}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v", err)
	}
	select {
	case <-cancelled:
	case <-h.ctx.Done():
		t.Error("the editor's request was not cancelled")
	}
}
