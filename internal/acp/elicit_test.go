package acp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/elicit"
)

// elicitConn is a raw client with a session open, and the server as the
// agent's Elicitor.
func elicitConn(t *testing.T, caps string) (*rawConn, agent.Elicitor, string) {
	t.Helper()
	fes := make(chan agent.Frontend, 1)
	c := serveRaw(t, Options{Version: "v", NewAgent: func(cfg Config) (Agent, error) {
		fes <- cfg.Frontend
		return &fakeAgent{fe: cfg.Frontend}, nil
	}})
	c.ask(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":`+caps+`}}`)
	line := c.ask(t, `{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":`+quote(t.TempDir())+`,"mcpServers":[]}}`)
	var res struct {
		Result struct {
			SessionID string `json:"sessionId"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(line), &res); err != nil || res.Result.SessionID == "" {
		t.Fatalf("session/new: %s", line)
	}
	e, ok := (<-fes).(agent.Elicitor)
	if !ok {
		t.Fatal("the server is not an agent.Elicitor")
	}
	return c, e, res.Result.SessionID
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }

func acpElicitRequest(t *testing.T, schema string) *agent.ElicitRequest {
	t.Helper()
	s, err := elicit.Parse(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	// The fake agent names its first session s-1.
	return &agent.ElicitRequest{SessionID: "s-1", TurnID: "t",
		Request: elicit.Request{CallID: "call-1", Server: "tickets", Message: "Which queue?\x1b[2J", Schema: s}}
}

type elicitAnswer struct {
	res elicit.Result
	err error
}

// asking runs Elicit in the background and returns the request the
// client reads.
func asking(t *testing.T, c *rawConn, e agent.Elicitor, ctx context.Context, req *agent.ElicitRequest) (map[string]any, chan elicitAnswer) {
	t.Helper()
	done := make(chan elicitAnswer, 1)
	go func() {
		res, err := e.Elicit(ctx, req)
		done <- elicitAnswer{res, err}
	}()
	var m map[string]any
	for {
		line := c.next(t)
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		if m["method"] != "session/update" {
			return m, done
		}
	}
}

func answered(t *testing.T, done chan elicitAnswer) elicitAnswer {
	t.Helper()
	select {
	case a := <-done:
		return a
	case <-time.After(10 * time.Second):
		t.Fatal("no answer")
		return elicitAnswer{}
	}
}

// TestElicitForwardedToAClientThatShowsForms: elicitation/create, tied
// to the session and the tool call, with the form agent-ls read; the
// answer is checked against it.
func TestElicitForwardedToAClientThatShowsForms(t *testing.T) {
	c, e, sid := elicitConn(t, `{"elicitation":{"form":{}}}`)
	schema := `{"type":"object","properties":{"queue":{"type":"string","enum":["ops","dev"]}},"required":["queue"]}`
	for _, tc := range []struct {
		answer string
		want   string
		queue  any
	}{
		{`{"action":"accept","content":{"queue":"dev"}}`, elicit.Accept, "dev"},
		{`{"action":"accept","content":{"queue":"hr"}}`, elicit.Decline, nil},
		{`{"action":"decline"}`, elicit.Decline, nil},
		{`{"action":"cancel"}`, elicit.Cancel, nil},
	} {
		m, done := asking(t, c, e, context.Background(), acpElicitRequest(t, schema))
		p, _ := m["params"].(map[string]any)
		if m["method"] != "elicitation/create" || p["sessionId"] != sid || p["toolCallId"] != "call-1" || p["mode"] != "form" ||
			p["message"] != `Which queue?\x1b[2J` || p["_meta"] != nil {
			t.Fatalf("request %v", m)
		}
		rs, _ := json.Marshal(p["requestedSchema"])
		if !strings.Contains(string(rs), `{"const":"dev","title":"dev"}`) || !strings.Contains(string(rs), `"required":["queue"]`) {
			t.Errorf("schema %s", rs)
		}
		id, _ := json.Marshal(m["id"])
		c.send(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+tc.answer+`}`)
		a := answered(t, done)
		if a.err != nil || a.res.Action != tc.want || (tc.queue != nil && a.res.Content["queue"] != tc.queue) || (tc.queue == nil && a.res.Content != nil) {
			t.Errorf("answer %s: %+v %v", tc.answer, a.res, a.err)
		}
	}
	// The turn's interrupt cancels the question, and the request.
	ctx, cancel := context.WithCancel(context.Background())
	m, done := asking(t, c, e, ctx, acpElicitRequest(t, schema))
	cancel()
	if a := answered(t, done); a.res.Action != elicit.Cancel {
		t.Errorf("interrupted: %+v", a)
	}
	id, _ := json.Marshal(m["id"])
	if line := c.next(t); !strings.Contains(line, `"method":"$/cancel_request"`) || !strings.Contains(line, `"requestId":`+string(id)) {
		t.Errorf("after the interrupt: %s", line)
	}
}

// TestElicitAsAPermissionRequest: a client without form elicitation gets
// a one-choice question as session/request_permission, and any other
// form declined without asking.
func TestElicitAsAPermissionRequest(t *testing.T) {
	c, e, sid := elicitConn(t, `{}`)
	schema := `{"type":"object","properties":{"urgent":{"type":"boolean","title":"Urgent\u202e"}}}`
	for _, tc := range []struct {
		outcome string
		want    string
		urgent  any
	}{
		{`{"outcome":"selected","optionId":"choice-1"}`, elicit.Accept, false},
		{`{"outcome":"selected","optionId":"decline"}`, elicit.Decline, nil},
		{`{"outcome":"cancelled"}`, elicit.Cancel, nil},
	} {
		m, done := asking(t, c, e, context.Background(), acpElicitRequest(t, schema))
		p, _ := m["params"].(map[string]any)
		b, _ := json.Marshal(p)
		if m["method"] != "session/request_permission" || p["sessionId"] != sid ||
			!strings.Contains(string(b), `{"kind":"allow_once","name":"Yes","optionId":"choice-0"}`) ||
			!strings.Contains(string(b), `{"kind":"reject_once","name":"Decline","optionId":"decline"}`) ||
			!strings.Contains(string(b), `Which queue?\\x1b[2J\nUrgent\\u202e`) || strings.Contains(string(b), "\x1b") {
			t.Fatalf("request %s", b)
		}
		id, _ := json.Marshal(m["id"])
		c.send(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"outcome":`+tc.outcome+`}}`)
		a := answered(t, done)
		if a.err != nil || a.res.Action != tc.want || (tc.urgent != nil && a.res.Content["urgent"] != tc.urgent) {
			t.Errorf("outcome %s: %+v %v", tc.outcome, a.res, a.err)
		}
	}
	res, err := e.Elicit(context.Background(), acpElicitRequest(t, `{"type":"object","properties":{"a":{"type":"string"}}}`))
	if err != nil || res.Action != elicit.Decline || !strings.Contains(res.Note, "cannot show its form") {
		t.Errorf("a text field: %+v %v", res, err)
	}
}
