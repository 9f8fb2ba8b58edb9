package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/tools"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// languageFrontend is a recorder whose client answers language queries
// (when can) with answer, or waits for ctx to end when answer is "".
type languageFrontend struct {
	*recorder
	can    bool
	answer string
	mu     sync.Mutex
	reqs   []*LanguageRequest
	asked  chan struct{}
}

func (f *languageFrontend) LanguageEncoding(string) (workspace.Encoding, bool) {
	return workspace.UTF16, f.can
}

func (f *languageFrontend) LanguageQuery(ctx context.Context, req *LanguageRequest) (json.RawMessage, error) {
	f.mu.Lock()
	f.reqs = append(f.reqs, req)
	f.mu.Unlock()
	if f.asked != nil {
		f.asked <- struct{}{}
	}
	if f.answer == "" {
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return json.RawMessage(f.answer), nil
}

// languageTurn runs one turn whose model calls lsp_hover on a.go, with
// the frontend fe and the manager's timeout; it returns the model's
// script to inspect.
func languageTurn(t *testing.T, fe *languageFrontend, timeout time.Duration, during func(mgr *Manager, sessionID string, turn *Turn)) *scriptedModel {
	t.Helper()
	m := &scriptedModel{}
	m.add(callTools(fcall("h1", "lsp_hover", `{"path":"a.go","line":1,"column":9}`)), say("a", "ok"))
	mgr := managerWith(t, m, fe, func(o *Options) { o.Defaults.LanguageQueryTimeout = timeout })
	if err := os.WriteFile(filepath.Join(mgr.opts.Cwd, "a.go"), []byte("package a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	info, err := mgr.NewSession(SessionOptions{})
	must(t, err)
	turn, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "hover"})
	must(t, err)
	if during != nil {
		during(mgr, info.SessionID, turn)
	}
	<-turn.Done()
	if res := turn.Result(); res.Status != event.StatusCompleted && during == nil {
		t.Fatalf("turn %+v", res)
	}
	fe.mu.Lock()
	defer fe.mu.Unlock()
	for _, r := range fe.reqs {
		if r.SessionID != info.SessionID || r.TurnID != turn.ID() || r.CallID != "h1" || r.Kind != tools.QueryHover ||
			!strings.HasPrefix(r.URI, "file:///") || !strings.HasSuffix(r.URI, "/a.go") || *r.Position != (tools.LSPPosition{Line: 0, Character: 8}) {
			t.Errorf("query %+v", r)
		}
	}
	return m
}

// TestLanguageToolsOfferedOnlyToClientsThatAnswer: the lsp_* tools are
// offered where the frontend's client answers language queries and the
// query reaches it with the session, turn, call and file URI; elsewhere
// they are not offered and a call of one is told why.
func TestLanguageToolsOfferedOnlyToClientsThatAnswer(t *testing.T) {
	fe := &languageFrontend{recorder: newRecorder(), can: true, answer: `{"contents":"package a"}`}
	m := languageTurn(t, fe, 0, nil)
	for _, name := range tools.LanguageToolNames {
		if !slices.Contains(toolNames(m.request(0)), name) {
			t.Errorf("%s is not offered", name)
		}
	}
	if out := outputOf(m.request(1), "h1"); out != "package a" || len(fe.reqs) != 1 {
		t.Errorf("the model read %q after %d queries", out, len(fe.reqs))
	}

	fe = &languageFrontend{recorder: newRecorder(), answer: `{"contents":"package a"}`}
	m = languageTurn(t, fe, 0, nil)
	for _, name := range toolNames(m.request(0)) {
		if strings.HasPrefix(name, "lsp_") {
			t.Errorf("%s is offered to a client that cannot answer", name)
		}
	}
	if out := outputOf(m.request(1), "h1"); !strings.Contains(out, "cannot be asked in this session") || len(fe.reqs) != 0 {
		t.Errorf("the model read %q after %d queries", out, len(fe.reqs))
	}
}

// TestLanguageQueryTimesOut: a client that does not answer within the
// timeout gives the model an error naming the timeout and its key, and
// the turn goes on.
func TestLanguageQueryTimesOut(t *testing.T) {
	fe := &languageFrontend{recorder: newRecorder(), can: true}
	m := languageTurn(t, fe, 50*time.Millisecond, nil)
	out := outputOf(m.request(1), "h1")
	if !strings.Contains(out, "did not answer the hover query within 50ms (language_query_timeout_ms)") {
		t.Errorf("the model read %q", out)
	}
}

// TestLanguageQueryCancelledWithTheTurn: interrupting the turn ends a
// query the client has not answered.
func TestLanguageQueryCancelledWithTheTurn(t *testing.T) {
	fe := &languageFrontend{recorder: newRecorder(), can: true, asked: make(chan struct{}, 1)}
	languageTurn(t, fe, time.Hour, func(mgr *Manager, sessionID string, turn *Turn) {
		<-fe.asked
		must(t, mgr.Interrupt(sessionID, turn.ID()))
		select {
		case <-turn.Done():
		case <-time.After(10 * time.Second):
			t.Fatal("the turn waited for the query after the interrupt")
		}
		if res := turn.Result(); res.Status != event.StatusInterrupted {
			t.Errorf("turn %+v", res)
		}
	})
}
