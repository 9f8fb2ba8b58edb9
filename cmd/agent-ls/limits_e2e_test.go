package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// nearFull is a config whose context warning comes at 50% of a 2000-token
// window, with the compaction that runs by itself out of the way.
const nearFull = "model_context_window = 2000\nmodel_auto_compact_token_limit = 1000000\ncontext_warning_percent = 50\n"

// limitAsker answers agent/askUser's limit question with the labels in
// turn, and keeps the questions asked.
type limitAsker struct {
	mu      sync.Mutex
	answers []string
	asked   []map[string]any
}

func (a *limitAsker) request(_ context.Context, method string, params json.RawMessage) (any, error) {
	if method != "agent/askUser" {
		return nil, fmt.Errorf("unexpected %s", method)
	}
	var p map[string]any
	json.Unmarshal(params, &p)
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, p)
	label := a.answers[0]
	a.answers = a.answers[1:]
	return map[string]any{"answers": []map[string]any{{"id": "contextLimit", "label": label}}}, nil
}

// questionOf returns the id and text of the one question of an
// agent/askUser, and its turn.
func questionOf(p map[string]any) (id, text, turn string) {
	qs, _ := p["questions"].([]any)
	if len(qs) != 1 {
		return "", "", ""
	}
	q := qs[0].(map[string]any)
	turn, _ = p["turnId"].(string)
	return q["id"].(string), q["question"].(string), turn
}

// TestContextWarningBeforeTheTurn: a turn whose history and prompt pass
// context_warning_percent asks agent/askUser (question contextLimit)
// inside the new turn, before its first request: "Go on" sends the
// request as it is; "Compact first" summarises the conversation first.
func TestContextWarningBeforeTheTurn(t *testing.T) {
	a := &limitAsker{answers: []string{"Go on", "Compact first"}}
	big := strings.Repeat("lorem ipsum ", 400) // about 1200 tokens
	s := startWith(t, []string{writeConfig(t, nearFull)}, editor.Config{Request: a.request}, editor.Options{Events: true, Questions: true},
		fakemodel.Say("first answer"), fakemodel.Say("THE SUMMARY"), fakemodel.Say("second answer"))
	first := s.startTurn(map[string]any{"prompt": "first " + big})
	if done := s.wait(first.TurnID); done.Status != "completed" || done.LastMessage != "first answer" {
		t.Fatalf("first turn %+v", done)
	}
	if n := len(s.model.Requests()); n != 1 {
		t.Fatalf("after Go on: %d requests", n)
	}
	second := s.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "second prompt"})
	if done := s.wait(second.TurnID); done.Status != "completed" || done.LastMessage != "second answer" {
		t.Fatalf("second turn %+v", done)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.asked) != 2 {
		t.Fatalf("asked %d times", len(a.asked))
	}
	for i, turn := range []string{first.TurnID, second.TurnID} {
		id, text, in := questionOf(a.asked[i])
		if id != "contextLimit" || in != turn || !strings.Contains(text, "of the model's context window") {
			t.Errorf("question %d: %q %q in turn %q, want turn %q", i, id, text, in, turn)
		}
	}
	var compacted bool
	for _, ev := range s.events(second.TurnID) {
		compacted = compacted || ev.Type == "compacted" && ev.Summary == "THE SUMMARY"
	}
	reqs := s.model.Requests()
	if !compacted || len(reqs) != 3 {
		t.Fatalf("Compact first: compacted %v, %d requests", compacted, len(reqs))
	}
	if last := strings.Join(inputTexts(t, reqs[2]), "\n"); !strings.Contains(last, "THE SUMMARY") || strings.Contains(last, big) {
		t.Errorf("the request after the compaction does not carry the summary instead of the history")
	}
}

// TestRateLimitWarningStockClient: after an answer that left 4% of the
// tokens (under rate_limit_warning_percent, 10), a client without the
// questions opt-in is asked with window/showMessageRequest; "Go on" runs
// the turn.
func TestRateLimitWarningStockClient(t *testing.T) {
	var mu sync.Mutex
	var shown []string
	cfg := editor.Config{ShowMessageRequest: func(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		mu.Lock()
		defer mu.Unlock()
		var titles []string
		for _, a := range p.Actions {
			titles = append(titles, a.Title)
		}
		shown = append(shown, p.Message+" ["+strings.Join(titles, "|")+"]")
		for i := range p.Actions {
			if p.Actions[i].Title == "Go on" {
				return &p.Actions[i], nil
			}
		}
		return nil, nil
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true}, limitedSay("first"), fakemodel.Say("second"))
	first := s.startTurn(map[string]any{"prompt": "one"})
	s.wait(first.TurnID)
	second := s.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "two"})
	if done := s.wait(second.TurnID); done.Status != "completed" || done.LastMessage != "second" {
		t.Fatalf("second turn %+v", done)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) != 1 || !strings.Contains(shown[0], "rate limit is nearly used up: 4% left") || !strings.HasSuffix(shown[0], "[Compact first|Go on]") {
		t.Errorf("shown %q", shown)
	}
}

// TestExecWarnsNearTheContextLimit: exec prints the warning and goes on.
func TestExecWarnsNearTheContextLimit(t *testing.T) {
	m := fakemodel.New(fakemodel.Say("done"))
	defer m.Close()
	var stderr bytes.Buffer
	cmd := execCmd(t, m, "summarise "+strings.Repeat("lorem ipsum ", 400))
	cmd.Env = append(cmd.Env, writeConfig(t, nearFull))
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr.String())
	}
	if !strings.Contains(stderr.String(), "agent-ls: warning: The conversation and this prompt fill about") ||
		!strings.Contains(stderr.String(), "The turn goes on.") || len(m.Requests()) != 1 {
		t.Errorf("%d requests, stderr:\n%s", len(m.Requests()), stderr.String())
	}
}
