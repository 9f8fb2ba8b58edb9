package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// askArgs are the arguments of a request_user_input call with two
// questions.
const askArgs = `{"questions":[
 {"id":"db","header":"Database","question":"Which database should the service use?","options":[
  {"label":"Postgres (Recommended)","description":"Matches production."},
  {"label":"SQLite","description":"No server to run in tests."}]},
 {"id":"port","header":"Port","question":"Which port should it listen on?","options":[
  {"label":"8080","description":"The usual one."},
  {"label":"80","description":"Needs privileges."},
  {"label":"443","description":"With TLS."}]}]}`

// askSteps: the model asks, then answers.
func askSteps(args string) []fakemodel.Step {
	return []fakemodel.Step{fakemodel.Answer(fakemodel.FunctionCall("q1", "request_user_input", args)), fakemodel.Say("thanks")}
}

// offers reports whether the model request r offers the tool name.
func offers(t *testing.T, r *fakemodel.Request, name string) bool {
	t.Helper()
	return slices.Contains(requestTools(t, r), name)
}

// TestAskUserOverAgentAskUser: an editor with experimental.agent.questions
// gets the model's questions as agent/askUser, with the session, the
// turn and the call; its answers (an option, and "Other" words) reach
// the model in Codex's format.
func TestAskUserOverAgentAskUser(t *testing.T) {
	var mu sync.Mutex
	var asked []map[string]any
	cfg := editor.Config{Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
		if method != "agent/askUser" {
			return nil, fmt.Errorf("unexpected %s", method)
		}
		var p map[string]any
		json.Unmarshal(params, &p)
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		return map[string]any{"answers": []map[string]any{{"id": "db", "label": "SQLite"}, {"id": "port", "text": "8443, behind the proxy"}}}, nil
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true, Questions: true}, askSteps(askArgs)...)
	turn := s.startTurn(map[string]any{"prompt": "set up the service"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	want := `{"answers":{"db":{"answers":["SQLite"]},"port":{"answers":["None of the above","user_note: 8443, behind the proxy"]}}}`
	if out := s.toolOutput(turn.TurnID, "q1"); out != want {
		t.Errorf("the model read %q, want %q", out, want)
	}
	reqs := s.model.Requests()
	if !offers(t, reqs[0], "request_user_input") {
		t.Errorf("gpt-5-codex in default mode is not offered request_user_input: %q", requestTools(t, reqs[0]))
	}
	if got := callOutput(t, reqs[1].Body); got != want {
		t.Errorf("the model's next request carries %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 {
		t.Fatalf("asked %d times", len(asked))
	}
	p := asked[0]
	var args map[string]any
	json.Unmarshal([]byte(askArgs), &args)
	got, _ := json.Marshal(p["questions"])
	sent, _ := json.Marshal(args["questions"])
	if p["sessionId"] != turn.SessionID || p["turnId"] != turn.TurnID || p["callId"] != "q1" || string(got) != string(sent) {
		t.Errorf("agent/askUser %v, want the questions %s", p, sent)
	}
}

// TestAskUserStockClient: a client without the opt-in gets one
// window/showMessageRequest per question, the options as its actions
// and no "Other"; the question it dismisses is reported unanswered.
func TestAskUserStockClient(t *testing.T) {
	var mu sync.Mutex
	var shown []*protocol.ShowMessageRequestParams
	cfg := editor.Config{ShowMessageRequest: func(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		mu.Lock()
		defer mu.Unlock()
		shown = append(shown, p)
		if len(shown) == 1 {
			return &p.Actions[1], nil
		}
		return nil, nil // dismissed
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true}, askSteps(askArgs)...)
	turn := s.startTurn(map[string]any{"prompt": "set up the service"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	want := "{\"answers\":{\"db\":{\"answers\":[\"SQLite\"]},\"port\":{\"answers\":[]}}}\nThe user did not answer: port"
	if out := s.toolOutput(turn.TurnID, "q1"); out != want {
		t.Errorf("the model read %q, want %q", out, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(shown) != 2 {
		t.Fatalf("%d showMessageRequests, want one per question", len(shown))
	}
	var titles []string
	for _, a := range shown[1].Actions {
		titles = append(titles, a.Title)
	}
	if !slices.Equal(titles, []string{"8080", "80", "443"}) {
		t.Errorf("the second question's actions are %q", titles)
	}
	for _, want := range []string{"agent-ls asks (1 of 2) · Database:\nWhich database should the service use?", "• SQLite: No server to run in tests."} {
		if !strings.Contains(shown[0].Message, want) {
			t.Errorf("the first question's message %q lacks %q", shown[0].Message, want)
		}
	}
}

// TestAskUserWithdrawnByInterrupt: interrupting the turn while the
// editor shows the questions cancels agent/askUser ($/cancelRequest
// reaches the editor), and the call's result says the questions were
// withdrawn.
func TestAskUserWithdrawnByInterrupt(t *testing.T) {
	asked, cancelled := make(chan struct{}), make(chan struct{})
	cfg := editor.Config{Request: func(ctx context.Context, method string, _ json.RawMessage) (any, error) {
		if method != "agent/askUser" {
			return nil, fmt.Errorf("unexpected %s", method)
		}
		close(asked)
		<-ctx.Done() // the user has not answered yet
		close(cancelled)
		return nil, ctx.Err()
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true, Questions: true}, askSteps(askArgs)...)
	turn := s.startTurn(map[string]any{"prompt": "set up the service"})
	select {
	case <-asked:
	case <-s.ctx.Done():
		t.Fatal("the questions were not asked")
	}
	if err := s.ed.Request(s.ctx, "agent/interrupt", map[string]any{"sessionId": turn.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case <-cancelled:
	case <-time.After(20 * time.Second):
		t.Fatal("agent/askUser was not cancelled")
	}
	if done := s.wait(turn.TurnID); done.Status != "interrupted" {
		t.Fatalf("turn %+v", done)
	}
	if out := s.toolOutput(turn.TurnID, "q1"); !strings.Contains(out, "the user interrupted the turn, which withdrew the questions") {
		t.Errorf("the call's result is %q", out)
	}
}

// TestAskUserWrongArguments: a call that breaks the rules (four
// options, an "Other" of its own) fails without asking, with an error
// the model can act on.
func TestAskUserWrongArguments(t *testing.T) {
	cfg := editor.Config{Request: func(_ context.Context, method string, _ json.RawMessage) (any, error) {
		return nil, fmt.Errorf("unexpected %s: nothing should be asked", method)
	}}
	four := `{"questions":[{"id":"db","header":"Database","question":"Which?","options":[{"label":"a","description":""},{"label":"b","description":""},{"label":"c","description":""},{"label":"d","description":""}]}]}`
	other := `{"questions":[{"id":"db","header":"Database","question":"Which?","options":[{"label":"a","description":""},{"label":"Other","description":""}]}]}`
	s := startWith(t, nil, cfg, editor.Options{Events: true, Questions: true},
		fakemodel.Answer(fakemodel.FunctionCall("q1", "request_user_input", four), fakemodel.FunctionCall("q2", "request_user_input", other)),
		fakemodel.Say("I will decide myself"))
	turn := s.startTurn(map[string]any{"prompt": "set up the service"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	for call, want := range map[string]string{
		"q1": `request_user_input: question 1 (db) has 4 options: give two or three (the client adds a free-form "Other" itself)`,
		"q2": `request_user_input: question 1 (db) has an option "Other": leave it out, the client adds a free-form "Other" itself`,
	} {
		if out := s.toolOutput(turn.TurnID, call); out != want {
			t.Errorf("%s: the model read %q, want %q", call, out, want)
		}
	}
}

// TestAskUserNotOfferedUnderNever: in default mode, under the approval
// policy "never", the tool is not offered, and a call of it is told why.
func TestAskUserNotOfferedUnderNever(t *testing.T) {
	s := startWith(t, nil, editor.Config{}, editor.Options{Events: true, Questions: true,
		InitializationOptions: map[string]any{"approvalPolicy": "never"}}, askSteps(askArgs)...)
	turn := s.startTurn(map[string]any{"prompt": "set up the service"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	if offers(t, s.model.Requests()[0], "request_user_input") {
		t.Error("request_user_input is offered under the approval policy never")
	}
	if out := s.toolOutput(turn.TurnID, "q1"); !strings.Contains(out, `request_user_input is unavailable in Default mode under the approval policy "never"`) {
		t.Errorf("the call's result is %q", out)
	}
}

// TestAskUserAnswersOutsideTheQuestions: an answer with an id the
// questions do not have leaves them unanswered (the model is told so);
// a label that is not one of a question's options fails the call, and
// the model reads why.
func TestAskUserAnswersOutsideTheQuestions(t *testing.T) {
	var mu sync.Mutex
	n := 0
	cfg := editor.Config{Request: func(_ context.Context, method string, _ json.RawMessage) (any, error) {
		if method != "agent/askUser" {
			return nil, fmt.Errorf("unexpected %s", method)
		}
		mu.Lock()
		defer mu.Unlock()
		n++
		if n == 1 {
			return map[string]any{"answers": []map[string]any{{"id": "nope", "label": "SQLite"}}}, nil
		}
		return map[string]any{"answers": []map[string]any{{"id": "db", "label": "MySQL"}}}, nil
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true, Questions: true},
		fakemodel.Answer(fakemodel.FunctionCall("q1", "request_user_input", askArgs)),
		fakemodel.Answer(fakemodel.FunctionCall("q2", "request_user_input", askArgs)),
		fakemodel.Say("I will decide myself"))
	turn := s.startTurn(map[string]any{"prompt": "set up the service"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	if out := s.toolOutput(turn.TurnID, "q1"); !strings.HasSuffix(out, "The user did not answer: db, port") || strings.Contains(out, "SQLite") || strings.Contains(out, "nope") {
		t.Errorf("an answer for an unknown id: the model read %q", out)
	}
	if out := s.toolOutput(turn.TurnID, "q2"); !strings.Contains(out, `chose "MySQL", which is not one of its options`) {
		t.Errorf("a label that is no option: the model read %q", out)
	}
}
