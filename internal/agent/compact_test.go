package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// sayUsing is say with the usage the model reports.
func sayUsing(id, text string, in, out int64) func(context.Context, *model.Request, func(model.Event)) (*model.Response, error) {
	return func(ctx context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error) {
		resp, err := say(id, text)(ctx, req, emit)
		if resp != nil {
			resp.Usage = model.Usage{InputTokens: in, OutputTokens: out}
		}
		return resp, err
	}
}

// texts lists the text of each input item, the output of call outputs.
func texts(items []model.Item) []string {
	var out []string
	for _, it := range items {
		switch {
		case it.Type == model.ItemMessage:
			out = append(out, it.Text)
		case it.Output != "":
			out = append(out, "output:"+it.CallID)
		default:
			out = append(out, string(it.Type)+":"+it.CallID)
		}
	}
	return out
}

// compactObserver keeps what a record would: the items each compaction
// put in place.
type compactObserver struct {
	noObserver
	mu        sync.Mutex
	compacted [][]model.Item
}

func (o *compactObserver) Compacted(items []model.Item) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.compacted = append(o.compacted, items)
}

// TestAutoCompactionBetweenTurns: a turn whose request would go over the
// limit first asks the model for a summary, with the same instructions
// and tools and the compaction prompt last; the request that follows
// carries the context items, the summary and the recent items, and the
// turn goes on by itself.
func TestAutoCompactionBetweenTurns(t *testing.T) {
	first, answer, second := strings.Repeat("a", 2000), strings.Repeat("b", 2000), strings.Repeat("c", 800)
	m := &scriptedModel{}
	m.add(
		sayUsing("msg_1", answer, 600, 500),
		sayUsing("msg_sum", "SUMMARY: the user asked for a; b was answered.", 1300, 20),
		say("msg_2", "done"),
	)
	rec := newRecorder()
	obs := &compactObserver{}
	mgr := managerWith(t, m, rec, func(o *Options) {
		o.AutoCompactTokenLimit = 1200
		o.Observe = func(SessionInfo, bool) (Observer, error) { return obs, nil }
	})
	info, _ := mgr.NewSession(SessionOptions{})
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: first}); err != nil {
		t.Fatal(err)
	}
	rec.wait(t)
	turnID, err := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: second}))
	if err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted || done.LastMessage != "done" {
		t.Fatalf("turn %+v", done)
	}

	sum := m.request(1)
	if last := sum.Input[len(sum.Input)-1]; last.Text != compactPrompt {
		t.Errorf("the summary request does not end with the compaction prompt: %q", last.Text)
	}
	if len(sum.Tools) != len(m.request(0).Tools) || sum.Instructions != baseInstructions || sum.PromptCacheKey != info.SessionID {
		t.Errorf("the summary request differs from the turn's in tools, instructions or cache key")
	}
	if got := texts(sum.Input); len(got) != 5 || got[1] != first || got[2] != answer || got[3] != second {
		t.Errorf("summary request input %.60q", got)
	}

	next := texts(m.request(2).Input)
	if len(next) != 3 || !strings.HasPrefix(next[0], "<environment_context>") ||
		next[1] != compactSummaryPrefix+"SUMMARY: the user asked for a; b was answered." || next[2] != second {
		t.Errorf("the request after compaction carries %.80q", next)
	}

	var compacted []event.Compacted
	var usage []event.Usage
	for _, ev := range rec.all() {
		if ev.TurnID != turnID {
			continue
		}
		switch p := ev.Payload.(type) {
		case event.Compacted:
			compacted = append(compacted, p)
		case event.Usage:
			usage = append(usage, p)
		}
	}
	if len(compacted) != 1 || compacted[0].Summary != "SUMMARY: the user asked for a; b was answered." ||
		compacted[0].TokensBefore < 1200 || compacted[0].TokensAfter >= compacted[0].TokensBefore {
		t.Errorf("compacted events %+v", compacted)
	}
	// The summary's tokens count in the session's total.
	if len(usage) != 2 || usage[0].InputTokens != 1300 || usage[1].Total.InputTokens != 600+1300+10 {
		t.Errorf("usage events %+v", usage)
	}
	if len(obs.compacted) != 1 || len(obs.compacted[0]) != 3 || obs.compacted[0][2].Text != second {
		t.Errorf("the record was told of %d compactions: %+v", len(obs.compacted), obs.compacted)
	}
	// The record's history and the live one agree.
	rec2, _ := mgr.Record(info.SessionID)
	if got := texts(rec2.History); len(got) != 4 || got[3] != "done" {
		t.Errorf("history after the turn %.60q", got)
	}
}

// bigOutputTool answers with a large output, as a command printing a lot
// would.
type bigOutputTool struct{}

func (bigOutputTool) Spec() tools.Spec {
	return tools.Spec{Type: tools.Function, Name: "dump", Parameters: json.RawMessage(`{"type":"object"}`)}
}
func (bigOutputTool) Kind() event.ToolKind      { return event.KindRead }
func (bigOutputTool) Mutating(*tools.Call) bool { return false }
func (bigOutputTool) Title(*tools.Call) string  { return "dump" }
func (bigOutputTool) Handle(context.Context, *tools.Env, *tools.Call) (tools.Output, error) {
	return tools.Output{Text: strings.Repeat("x", 8000)}, nil
}

// TestAutoCompactionMidTurn: a tool output that takes the context over
// the limit is summarised before the next request of the same turn; the
// turn's prompt stays before the summary, and no call output is left
// without its call.
func TestAutoCompactionMidTurn(t *testing.T) {
	m := &scriptedModel{}
	m.add(
		callTools(fcall("c1", "dump", `{}`)),
		sayUsing("msg_sum", "SUMMARY: dumped 8000 x.", 2100, 10),
		say("msg_2", "done"),
	)
	rec := newRecorder()
	mgr := managerWith(t, m, rec, func(o *Options) { o.AutoCompactTokenLimit = 1500 }, bigOutputTool{})
	info, _ := mgr.NewSession(SessionOptions{})
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "dump it"}); err != nil {
		t.Fatal(err)
	}
	if done := rec.wait(t); done.Status != event.StatusCompleted {
		t.Fatalf("turn %+v", done)
	}
	next := texts(m.request(2).Input)
	if len(next) != 3 || next[1] != "dump it" || next[2] != compactSummaryPrefix+"SUMMARY: dumped 8000 x." {
		t.Errorf("the request after compaction carries %.60q", next)
	}
	for _, it := range m.request(2).Input {
		if it.Type == model.ItemFunctionCallOutput || it.Type == model.ItemFunctionCall {
			t.Errorf("a call or output survived a cut that dropped its pair: %+v", it)
		}
	}
}

// TestCompactionFailureLeavesHistory: when the summary request fails, the
// turn's request goes with the history as it was, and nothing is lost.
func TestCompactionFailureLeavesHistory(t *testing.T) {
	m := &scriptedModel{}
	m.add(
		sayUsing("msg_1", "one", 5000, 10),
		func(context.Context, *model.Request, func(model.Event)) (*model.Response, error) {
			return nil, errors.New("model overloaded")
		},
		say("msg_2", "two"),
	)
	rec := newRecorder()
	mgr := managerWith(t, m, rec, func(o *Options) { o.AutoCompactTokenLimit = 1000 })
	info, _ := mgr.NewSession(SessionOptions{})
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "first"})
	rec.wait(t)
	turnID, _ := startID(mgr.StartTurn(info.SessionID, TurnInput{Prompt: "second"}))
	if done := rec.wait(t); done.Status != event.StatusCompleted || done.LastMessage != "two" {
		t.Fatalf("turn %+v", done)
	}
	if got := texts(m.request(2).Input); len(got) != 4 || got[1] != "first" || got[2] != "one" || got[3] != "second" {
		t.Errorf("request after a failed compaction %q", got)
	}
	if strings.Contains(strings.Join(rec.types(turnID), ","), "compacted") {
		t.Errorf("a compacted event for a failed compaction: %v", rec.types(turnID))
	}
}

// TestManualCompaction: Compact runs as a turn of its own ("/compact"),
// refuses an empty conversation and a running turn, and the next turn
// goes on from the summary.
func TestManualCompaction(t *testing.T) {
	m := &scriptedModel{}
	block := make(chan struct{})
	m.add(
		say("msg_1", "one"),
		func(ctx context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error) {
			<-block
			return say("msg_sum", "SUMMARY")(ctx, req, emit)
		},
		say("msg_2", "two"),
	)
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, _ := mgr.NewSession(SessionOptions{})
	if _, err := mgr.Compact(info.SessionID); !errors.Is(err, ErrNothingToCompact) {
		t.Fatalf("compacting an empty session: %v", err)
	}
	if _, err := mgr.Compact("s-nope"); !errors.Is(err, ErrUnknownSession) {
		t.Fatalf("compacting an unknown session: %v", err)
	}
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "first"})
	rec.wait(t)
	turn, err := mgr.Compact(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "meanwhile"}); !errors.Is(err, ErrTurnRunning) {
		t.Errorf("a turn during a compaction: %v", err)
	}
	close(block)
	if res := turn.Result(); res.Status != event.StatusCompleted {
		t.Fatalf("compaction %+v", res)
	}
	rec.wait(t)
	if got := strings.Join(rec.types(turn.ID()), ","); got != "turnStarted,compacted,usage,turnCompleted" {
		t.Errorf("compaction events %s", got)
	}
	for _, ev := range rec.all() {
		if p, ok := ev.Payload.(event.TurnStarted); ok && ev.TurnID == turn.ID() && p.Prompt != CompactPrompt {
			t.Errorf("compaction turn prompt %q", p.Prompt)
		}
	}
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "second"})
	rec.wait(t)
	// At most a quarter of the context stays as it was: here, nothing.
	got := texts(m.request(2).Input)
	if len(got) != 3 || got[1] != compactSummaryPrefix+"SUMMARY" || got[2] != "second" {
		t.Errorf("request after compaction %q", got)
	}
}

// TestManualCompactionInterrupted: an interrupted compaction leaves the
// history as it was.
func TestManualCompactionInterrupted(t *testing.T) {
	m := &scriptedModel{}
	m.add(
		say("msg_1", "one"),
		func(ctx context.Context, _ *model.Request, _ func(model.Event)) (*model.Response, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		},
	)
	rec := newRecorder()
	mgr := newTestManager(t, m, rec)
	info, _ := mgr.NewSession(SessionOptions{})
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: "first"})
	rec.wait(t)
	before, _ := mgr.Record(info.SessionID)
	turn, err := mgr.Compact(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	if err := mgr.Interrupt(info.SessionID, turn.ID()); err != nil {
		t.Fatal(err)
	}
	if res := turn.Result(); res.Status != event.StatusInterrupted {
		t.Errorf("interrupted compaction %+v", res)
	}
	after, _ := mgr.Record(info.SessionID)
	if strings.Join(texts(after.History), "|") != strings.Join(texts(before.History), "|") {
		t.Errorf("history changed by an interrupted compaction")
	}
}

// TestNothingToSummarise: a first prompt over the limit alone is sent as
// it is: a summary of nothing but the prompt would only add to it.
func TestNothingToSummarise(t *testing.T) {
	m := &scriptedModel{}
	m.add(say("msg_1", "one"))
	rec := newRecorder()
	mgr := managerWith(t, m, rec, func(o *Options) { o.AutoCompactTokenLimit = 100 })
	info, _ := mgr.NewSession(SessionOptions{})
	mgr.StartTurn(info.SessionID, TurnInput{Prompt: strings.Repeat("p", 4000)})
	if done := rec.wait(t); done.Status != event.StatusCompleted || len(m.requests) != 1 {
		t.Fatalf("turn %+v after %d requests", done, len(m.requests))
	}
}

// TestTailStart: the kept items start at a message or reasoning item and
// never hold a call output without its call.
func TestTailStart(t *testing.T) {
	msg := func(role, text string) model.Item { return model.Item{Type: model.ItemMessage, Role: role, Text: text} }
	call := func(id string) model.Item { return model.Item{Type: model.ItemFunctionCall, CallID: id, Name: "f"} }
	out := func(id string, n int) model.Item {
		return model.Item{Type: model.ItemFunctionCallOutput, CallID: id, Output: strings.Repeat("o", n)}
	}
	items := []model.Item{
		msg(model.RoleUser, "<environment_context>x</environment_context>"),
		msg(model.RoleUser, "p1"),               // 1
		call("a"),                               // 2
		out("a", 400),                           // 3: 104 tokens
		{Type: model.ItemReasoning, ID: "rs_1"}, // 4
		call("b"),                               // 5
		msg(model.RoleAssistant, "between"),     // 6
		out("b", 40),                            // 7: 14 tokens
		msg(model.RoleAssistant, "end"),         // 8
	}
	for _, tc := range []struct {
		budget int64
		want   int
	}{
		{0, len(items)},
		{5, 8},       // "end" alone
		{30, 8},      // 6 would orphan b's output; 7 is an output
		{60, 4},      // from the reasoning item that precedes b
		{1000, 1},    // everything but the context item
		{1 << 40, 1}, // likewise
	} {
		if got := tailStart(items, tc.budget); got != tc.want {
			t.Errorf("tailStart(budget %d) = %d, want %d", tc.budget, got, tc.want)
		}
	}
}
