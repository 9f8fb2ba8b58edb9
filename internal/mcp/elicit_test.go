package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/agent-ls/agent-ls/internal/elicit"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// elicitServer offers ask: it asks the client the form its schema
// argument holds, with its message, and answers with what came back.
func elicitServer() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("elicit", "1.0.0", mcpserver.WithToolCapabilities(true), mcpserver.WithElicitation())
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("Asks the user."), mcp.WithString("message"), mcp.WithString("schema")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var schema any
			if err := json.Unmarshal([]byte(req.GetString("schema", "{}")), &schema); err != nil {
				return nil, err
			}
			res, err := s.RequestElicitation(ctx, mcp.ElicitationRequest{Params: mcp.ElicitationParams{
				Message: req.GetString("message", ""), RequestedSchema: schema}})
			if err != nil {
				return mcp.NewToolResultError("elicitation failed: " + err.Error()), nil
			}
			content, _ := json.Marshal(res.Content)
			return mcp.NewToolResultText(fmt.Sprintf("action=%s content=%s", res.Action, content)), nil
		})
	return s
}

// asker is an approver whose user answers questions with answer.
type asker struct {
	approver
	mu     sync.Mutex
	asked  []elicit.Request
	answer func(ctx context.Context, req elicit.Request) (elicit.Result, error)
}

func (a *asker) Elicit(ctx context.Context, req elicit.Request) (elicit.Result, error) {
	a.mu.Lock()
	a.asked = append(a.asked, req)
	a.mu.Unlock()
	return a.answer(ctx, req)
}

const colorSchema = `{"type":"object","properties":{"color":{"type":"string","enum":["red","green"]},"n":{"type":"integer","minimum":1,"maximum":9,"default":3}},"required":["color"]}`

// TestElicitationReachesTheSession: a server's question during a call
// goes to the approver of the call's session, its answer back to the
// server, which tells the model; an answer that does not fit the form,
// or a question nobody can be asked, is declined.
func TestElicitationReachesTheSession(t *testing.T) {
	_, reg, _ := startSet(t, ourServer(t, "q", "elicit"))
	args := map[string]any{"message": "Pick a colour", "schema": colorSchema}

	a := &asker{answer: func(_ context.Context, req elicit.Request) (elicit.Result, error) {
		return elicit.Result{Action: elicit.Accept, Content: map[string]any{"color": "green"}}, nil
	}}
	r := call(t, reg, a, "q__ask", args)
	// The default of n is filled in.
	mustContain(t, "accepted", r.Output.Text, `action=accept content={"color":"green","n":3}`)
	if len(a.asked) != 1 || a.asked[0].Server != "q" || a.asked[0].Message != "Pick a colour" || a.asked[0].CallID != "c1" ||
		len(a.asked[0].Schema.Fields) != 2 || a.asked[0].Schema.Fields[0].Name != "color" {
		t.Errorf("asked %+v", a.asked)
	}

	for _, tc := range []struct {
		name   string
		answer elicit.Result
		err    error
		want   string
	}{
		{"decline", elicit.Result{Action: elicit.Decline}, nil, "action=decline content=null"},
		{"cancel", elicit.Result{Action: elicit.Cancel}, nil, "action=cancel content=null"},
		{"invalid content", elicit.Result{Action: elicit.Accept, Content: map[string]any{"color": "blue"}}, nil, "action=decline content=null"},
		{"unknown field", elicit.Result{Action: elicit.Accept, Content: map[string]any{"color": "red", "x": 1}}, nil, "action=decline content=null"},
		{"unknown action", elicit.Result{Action: "maybe"}, nil, "action=decline content=null"},
		{"failure", elicit.Result{}, errors.New("the editor went away"), "action=decline content=null"},
	} {
		a := &asker{answer: func(context.Context, elicit.Request) (elicit.Result, error) { return tc.answer, tc.err }}
		mustContain(t, tc.name, call(t, reg, a, "q__ask", args).Output.Text, tc.want)
	}

	// Why agent-ls answered on its own follows the server's result.
	a = &asker{answer: func(context.Context, elicit.Request) (elicit.Result, error) {
		return elicit.Result{Action: elicit.Decline, Note: "declined: the editor cannot show this form"}, nil
	}}
	mustContain(t, "note", call(t, reg, a, "q__ask", args).Output.Text, "action=decline content=null\n\n[agent-ls: declined: the editor cannot show this form]")
	// An approver that cannot ask: declined.
	mustContain(t, "no asker", call(t, reg, &approver{}, "q__ask", args).Output.Text, "action=decline")
	// A schema agent-ls does not take: declined without asking.
	a = &asker{answer: func(context.Context, elicit.Request) (elicit.Result, error) {
		return elicit.Result{Action: elicit.Accept}, nil
	}}
	bad := map[string]any{"message": "m", "schema": `{"type":"object","properties":{"a":{"type":"string"}},"required":["b"]}`}
	mustContain(t, "bad schema", call(t, reg, a, "q__ask", bad).Output.Text, "action=decline")
	// One the SDK refuses itself is an error for the server.
	bad["schema"] = `{"type":"object","properties":{"o":{"type":"string","format":"ipv4"}}}`
	mustContain(t, "bad format", call(t, reg, a, "q__ask", bad).Output.Text, "elicitation failed")
	if len(a.asked) != 0 {
		t.Errorf("asked about a schema refused: %+v", a.asked)
	}
}

// TestElicitationInterruptAndTimeout: the user's time to answer does not
// count against the tool timeout; the call's end (an interrupt) cancels
// the question.
func TestElicitationInterruptAndTimeout(t *testing.T) {
	cfg := ourServer(t, "q", "elicit")
	cfg.ToolTimeout = 300 * time.Millisecond
	set, reg, _ := startSet(t, cfg)
	args := map[string]any{"message": "slow", "schema": colorSchema}
	a := &asker{answer: func(context.Context, elicit.Request) (elicit.Result, error) {
		time.Sleep(time.Second) // more than the tool timeout
		return elicit.Result{Action: elicit.Accept, Content: map[string]any{"color": "red"}}, nil
	}}
	mustContain(t, "slow answer", call(t, reg, a, "q__ask", args).Output.Text, `action=accept content={"color":"red","n":3}`)
	if st := statusOf(t, set, "q"); st.State != StateReady {
		t.Errorf("after a slow answer: %+v", st)
	}

	asked := make(chan struct{})
	ended := make(chan error, 1)
	a = &asker{answer: func(ctx context.Context, req elicit.Request) (elicit.Result, error) {
		close(asked)
		<-ctx.Done()
		ended <- ctx.Err()
		return elicit.Result{Action: elicit.Accept, Content: map[string]any{"color": "red"}}, nil
	}}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-asked; cancel() }()
	h, _ := reg.Lookup("q__ask")
	raw, _ := json.Marshal(args)
	_, err := h.Handle(ctx, &tools.Env{Approver: a}, &tools.Call{CallID: "c9", Name: "q__ask", Arguments: raw})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("interrupted call: %v", err)
	}
	select {
	case cause := <-ended:
		if cause == nil {
			t.Error("the question's context did not end")
		}
	case <-time.After(10 * time.Second):
		t.Error("the question was not cancelled with the call")
	}
}

// TestElicitationRouting: with calls of two sessions under way to one
// server, a question cannot be told whose it is, and is declined; with
// one, it is that session's.
func TestElicitationRouting(t *testing.T) {
	var in inflight
	a1, a2 := &asker{}, &asker{}
	e1, e2 := &tools.Env{Approver: a1}, &tools.Env{Approver: a2}
	timer := func() *pausableTimer {
		_, pt, stop := withPausableTimeout(context.Background(), time.Minute)
		t.Cleanup(stop)
		return pt
	}
	if c, why := in.owner(); c != nil || why == "" {
		t.Errorf("no call: %v %q", c, why)
	}
	done1 := in.add(forSession(context.Background(), e1, "a"), timer())
	done1b := in.add(forSession(context.Background(), e1, "b"), timer())
	if c, _ := in.owner(); c == nil || c.owner.callID != "a" {
		t.Errorf("one session: %+v", c)
	}
	done2 := in.add(forSession(context.Background(), e2, "c"), timer())
	if c, why := in.owner(); c != nil || !strings.Contains(why, "several sessions") {
		t.Errorf("two sessions: %v %q", c, why)
	}
	done1()
	done1b()
	if c, _ := in.owner(); c == nil || c.owner.callID != "c" {
		t.Errorf("after the first session's calls ended: %+v", c)
	}
	done2()
	// A call without a session that can ask is not recorded.
	in.add(forSession(context.Background(), &tools.Env{Approver: &approver{}}, "d"), timer())
	if c, _ := in.owner(); c != nil {
		t.Errorf("a call whose session cannot ask: %+v", c)
	}
}

// TestPausableTimer: the timeout fires after its time, not counting the
// pauses.
func TestPausableTimer(t *testing.T) {
	ctx, pt, stop := withPausableTimeout(context.Background(), 200*time.Millisecond)
	defer stop()
	resume := pt.pause()
	time.Sleep(400 * time.Millisecond)
	if ctx.Err() != nil {
		t.Fatal("the timeout fired while paused")
	}
	resume()
	select {
	case <-ctx.Done():
		if context.Cause(ctx) != errCallTimeout {
			t.Errorf("cause %v", context.Cause(ctx))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the timeout never fired after the pause")
	}
}

// TestEverythingServerElicitation: the reference server's
// trigger-elicitation-request, whose form has every kind of field,
// answered with its defaults and the required name.
func TestEverythingServerElicitation(t *testing.T) {
	_, reg, _ := startSet(t, npmServer(t, "everything", "mcp-server-everything", "stdio"))
	a := &asker{answer: func(_ context.Context, req elicit.Request) (elicit.Result, error) {
		kinds := map[elicit.Kind]int{}
		for _, f := range req.Schema.Fields {
			kinds[f.Kind]++
		}
		if kinds[elicit.String] < 5 || kinds[elicit.Enum] != 3 || kinds[elicit.Multi] != 2 || kinds[elicit.Boolean] != 1 {
			return elicit.Result{}, fmt.Errorf("fields %v", kinds)
		}
		return elicit.Result{Action: elicit.Accept, Content: map[string]any{"name": "Ada", "email": "ada@example.com"}}, nil
	}}
	r := call(t, reg, a, "everything__trigger-elicitation-request", map[string]any{})
	mustContain(t, "everything", r.Output.Text, "User provided the requested information", "Name: Ada", "Email: ada@example.com", "Favorite Integer: 42")
	if len(a.asked) != 1 {
		t.Errorf("asked %d times", len(a.asked))
	}
}
