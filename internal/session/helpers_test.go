package session

import (
	"context"
	"errors"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// script is a model that answers each request with its next reply and
// keeps the requests.
type script struct {
	mu       sync.Mutex
	replies  [][]model.Item
	requests []*model.Request
}

func (s *script) Stream(_ context.Context, req *model.Request, emit func(model.Event)) (*model.Response, error) {
	s.mu.Lock()
	cp := *req
	cp.Input = append([]model.Item(nil), req.Input...)
	s.requests = append(s.requests, &cp)
	if len(s.replies) == 0 {
		s.mu.Unlock()
		return nil, errors.New("script exhausted")
	}
	out := s.replies[0]
	s.replies = s.replies[1:]
	s.mu.Unlock()
	for i := range out {
		emit(model.Event{Kind: model.ItemDone, ItemID: out[i].ID, Item: &out[i]})
	}
	return &model.Response{Output: out, Usage: model.Usage{InputTokens: 100, OutputTokens: 10}}, nil
}

func (s *script) lastRequest() *model.Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.requests[len(s.requests)-1]
}

func answer(id, text string) []model.Item {
	return []model.Item{{Type: model.ItemMessage, ID: id, Role: model.RoleAssistant, Text: text}}
}

func patchCall(callID, patch string) []model.Item {
	return []model.Item{{Type: model.ItemCustomToolCall, ID: "ct_" + callID, CallID: callID, Name: "apply_patch", Input: patch}}
}

// frontend collects events and answers approvals with decision.
type frontend struct {
	mu       sync.Mutex
	events   []event.Event
	decision string
	asked    int
	ended    chan event.TurnCompleted
}

func newFrontend(decision string) *frontend {
	return &frontend{decision: decision, ended: make(chan event.TurnCompleted, 16)}
}

func (f *frontend) Event(ev event.Event) {
	f.mu.Lock()
	f.events = append(f.events, ev)
	f.mu.Unlock()
	if tc, ok := ev.Payload.(event.TurnCompleted); ok {
		f.ended <- tc
	}
}

func (f *frontend) RequestApproval(context.Context, *agent.ApprovalRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked++
	return f.decision, nil
}

func (f *frontend) ApplyChanges(context.Context, *workspace.ChangeSet) (bool, error) {
	return false, nil
}

func (f *frontend) approvals() []event.Approval {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []event.Approval
	for _, ev := range f.events {
		if a, ok := ev.Payload.(event.Approval); ok {
			out = append(out, a)
		}
	}
	return out
}

// manager builds an agent manager that records into st.
func manager(t testing.TB, st *Store, m model.Client, fe agent.Frontend, cwd string, ap policy.ApprovalPolicy) *agent.Manager {
	t.Helper()
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		t.Fatal(err)
	}
	mgr, err := agent.NewManager(agent.Options{Defaults: agent.Defaults{ModelName: "test-model", ApprovalPolicy: ap, SandboxMode: policy.WorkspaceWrite}, Model: m, Frontend: fe, Tools: reg, Cwd: cwd,
		Observe:            st.Observe,
		SandboxUnavailable: func() string { return "" }, SandboxSummary: func() string { return "test" },
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mgr.Close)
	return mgr
}

// runTurn runs one turn to its end.
func runTurn(t testing.TB, mgr *agent.Manager, fe *frontend, sessionID, prompt string) event.TurnCompleted {
	t.Helper()
	turn, err := mgr.StartTurn(sessionID, agent.TurnInput{Prompt: prompt})
	if err != nil {
		t.Fatal(err)
	}
	<-turn.Done()
	return <-fe.ended
}

// stateDir makes a hermetic state directory and returns the sessions
// directory under it.
func stateDir(t testing.TB) string {
	t.Helper()
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	return filepath.Join(state, "agent-ls", "sessions")
}
