package agent

import (
	"context"
	"errors"
	"testing"

	"github.com/agent-ls/agent-ls/internal/elicit"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// elicitingFrontend answers questions with answer.
type elicitingFrontend struct {
	*askingFrontend
	asked  []*ElicitRequest
	answer func(ctx context.Context) (elicit.Result, error)
}

func (f *elicitingFrontend) Elicit(ctx context.Context, req *ElicitRequest) (elicit.Result, error) {
	f.asked = append(f.asked, req)
	return f.answer(ctx)
}

// TestElicitGoesToTheFrontend: a server's question reaches the frontend
// with the session and the turn; a frontend that cannot ask declines, a
// failure declines, an interrupt cancels. The turn's approver, as tools
// see it, is the MCP client's Elicitor.
func TestElicitGoesToTheFrontend(t *testing.T) {
	req := elicit.Request{CallID: "c1", Server: "s", Message: "Which?", Schema: &elicit.Schema{}}
	fe := &elicitingFrontend{askingFrontend: &askingFrontend{recorder: newRecorder()}, answer: func(context.Context) (elicit.Result, error) {
		return elicit.Result{Action: elicit.Accept, Content: map[string]any{"a": "b"}}, nil
	}}
	tr, ctx := testTurn(t, fe, policy.OnRequest, policy.WorkspaceWrite)
	env, _ := tr.toolEnv(nil)
	asker, ok := env.Approver.(interface {
		Elicit(context.Context, elicit.Request) (elicit.Result, error)
	})
	if !ok {
		t.Fatalf("the turn's approver %T cannot ask", env.Approver)
	}
	var _ tools.Approver = env.Approver
	res, err := asker.Elicit(ctx, req)
	if err != nil || res.Action != elicit.Accept || res.Content["a"] != "b" {
		t.Errorf("accept: %+v %v", res, err)
	}
	if len(fe.asked) != 1 || fe.asked[0].SessionID != tr.s.info.SessionID || fe.asked[0].TurnID != "t1" || fe.asked[0].Server != "s" {
		t.Errorf("asked %+v", fe.asked)
	}

	fe.answer = func(context.Context) (elicit.Result, error) { return elicit.Result{}, errors.New("gone") }
	if res, _ := asker.Elicit(ctx, req); res.Action != elicit.Decline {
		t.Errorf("failure: %+v", res)
	}
	cctx, cancel := context.WithCancel(ctx)
	fe.answer = func(ctx context.Context) (elicit.Result, error) {
		cancel()
		<-ctx.Done()
		return elicit.Result{}, ctx.Err()
	}
	if res, _ := asker.Elicit(cctx, req); res.Action != elicit.Cancel {
		t.Errorf("interrupt: %+v", res)
	}

	plain := &askingFrontend{recorder: newRecorder()}
	tr2, ctx2 := testTurn(t, plain, policy.OnRequest, policy.WorkspaceWrite)
	if res, _ := (turnApprover{tr2}).Elicit(ctx2, req); res.Action != elicit.Decline {
		t.Errorf("a frontend that cannot ask: %+v", res)
	}
}
