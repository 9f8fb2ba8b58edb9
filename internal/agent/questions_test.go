package agent

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// questionFrontend is a recorder that can ask (can) and answers every
// question with its first option.
type questionFrontend struct {
	*recorder
	can  bool
	mu   sync.Mutex
	reqs []*AskRequest
}

func (f *questionFrontend) CanAsk(string) bool { return f.can }

func (f *questionFrontend) AskUser(_ context.Context, req *AskRequest) ([]Answer, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reqs = append(f.reqs, req)
	var answers []Answer
	for _, q := range req.Questions {
		answers = append(answers, Answer{ID: q.ID, Label: q.Options[0].Label})
	}
	return answers, nil
}

const oneQuestion = `{"questions":[{"id":"db","header":"Database","question":"Which one?","options":[{"label":"Postgres","description":"As in production."},{"label":"SQLite","description":"No server."}]}]}`

// outputOf is the output the model read of call callID in req.
func outputOf(req *model.Request, callID string) string {
	for _, it := range req.Input {
		if it.Type == model.ItemFunctionCallOutput && it.CallID == callID {
			return it.Output
		}
	}
	return ""
}

// TestQuestionsOffered: request_user_input is offered in plan mode
// whatever the model and the approval policy, in default mode to the
// families whose Codex toolset lists it unless the policy is "never",
// and never unattended or by a frontend that cannot ask. Where it is
// not offered, a call of it is told why; where it is, the question
// reaches the frontend with the session, the turn and the call.
func TestQuestionsOffered(t *testing.T) {
	for _, tc := range []struct {
		name       string
		model      string
		approval   policy.ApprovalPolicy
		mode       Mode
		unattended bool
		cannotAsk  bool
		why        string // "" when offered
	}{
		{name: "gpt-5-codex default", model: "gpt-5-codex"},
		{name: "codex-mini default", model: "codex-mini-latest"},
		{name: "gpt-5 under never", model: "gpt-5", approval: policy.Never, why: `request_user_input is unavailable in Default mode under the approval policy "never"`},
		{name: "gpt-4.1 default", model: "gpt-4.1", why: "request_user_input is unavailable in Default mode for this model"},
		{name: "unknown model default", model: "my-local-model", why: "request_user_input is unavailable in Default mode for this model"},
		{name: "gpt-4.1 plan", model: "gpt-4.1", mode: ModePlan},
		{name: "gpt-5 plan under never", model: "gpt-5", approval: policy.Never, mode: ModePlan},
		{name: "unattended plan", model: "gpt-5", mode: ModePlan, unattended: true, why: "nobody answers questions in this run"},
		{name: "frontend cannot ask", model: "gpt-5", cannotAsk: true, why: "this client cannot put questions to the user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &scriptedModel{}
			m.add(callTools(fcall("q1", "request_user_input", oneQuestion)), say("a", "ok"))
			fe := &questionFrontend{recorder: newRecorder(), can: !tc.cannotAsk}
			mgr := optsManager(t, Options{Defaults: Defaults{ModelName: tc.model, ApprovalPolicy: tc.approval}, Model: m, Frontend: fe, Unattended: tc.unattended})
			info, err := mgr.NewSession(SessionOptions{Mode: tc.mode})
			if err != nil {
				t.Fatal(err)
			}
			turn, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "ask"})
			if err != nil {
				t.Fatal(err)
			}
			<-turn.Done()
			if res := turn.Result(); res.Status != event.StatusCompleted {
				t.Fatalf("turn %+v", res)
			}
			offered := slices.Contains(toolNames(m.request(0)), "request_user_input")
			out := outputOf(m.request(1), "q1")
			fe.mu.Lock()
			defer fe.mu.Unlock()
			if tc.why == "" {
				if !offered || out != `{"answers":{"db":{"answers":["Postgres"]}}}` || len(fe.reqs) != 1 {
					t.Fatalf("offered %v, asked %d times, the model read %q", offered, len(fe.reqs), out)
				}
				if r := fe.reqs[0]; r.SessionID != info.SessionID || r.TurnID != turn.ID() || r.CallID != "q1" || r.Questions[0].ID != "db" {
					t.Errorf("asked %+v", r)
				}
				return
			}
			if offered || len(fe.reqs) != 0 {
				t.Errorf("offered %v, asked %d times", offered, len(fe.reqs))
			}
			if !strings.Contains(out, tc.why) {
				t.Errorf("the model read %q, want %q", out, tc.why)
			}
		})
	}
}
