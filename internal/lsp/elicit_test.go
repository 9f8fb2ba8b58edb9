package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/elicit"
)

// initializeEliciting initializes the editor as a client that opts in to
// agent/elicit (experimental.agent.elicitation), which the fake editor's
// options do not name.
func (h *harness) initializeEliciting() {
	h.t.Helper()
	caps := map[string]any{"experimental": map[string]any{"agent": map[string]any{"events": true, "approvals": true, "elicitation": true}}}
	dir := h.t.TempDir()
	params := map[string]any{"capabilities": caps, "rootUri": uri.File(dir),
		"workspaceFolders": []map[string]any{{"uri": uri.File(dir), "name": dir}}}
	var res json.RawMessage
	if err := h.ed.Request(h.ctx, protocol.MethodInitialize, params, &res); err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
	if err := h.ed.Notify(h.ctx, protocol.MethodInitialized, map[string]any{}); err != nil {
		h.t.Fatal(err)
	}
	select {
	case h.agent = <-h.agents:
	case <-h.ctx.Done():
		h.t.Fatal("no agent was built")
	}
}

func elicitRequest(t *testing.T, schema string) *agent.ElicitRequest {
	t.Helper()
	s, err := elicit.Parse(json.RawMessage(schema))
	if err != nil {
		t.Fatal(err)
	}
	return &agent.ElicitRequest{SessionID: "s1", TurnID: "t1",
		Request: elicit.Request{CallID: "c1", Server: "tickets", Message: "Which queue?\x1b[2J", Schema: s}}
}

const queueSchema = `{"type":"object","properties":{"queue":{"type":"string","title":"Queue\u202e","oneOf":[{"const":"ops","title":"Operations"},{"const":"dev","title":"Development"}]}},"required":["queue"]}`

func elicitor(t *testing.T, h *harness) agent.Elicitor {
	t.Helper()
	e, ok := h.agent.cfg.Frontend.(agent.Elicitor)
	if !ok {
		t.Fatal("the server is not an agent.Elicitor")
	}
	return e
}

// TestElicitThroughAgentElicit: a client that opts in gets agent/elicit
// with the session, the turn, the server, the message (escapes visible)
// and the form; its accept comes back checked, content that does not fit
// the form declines, decline and cancel pass, an interrupt cancels the
// request.
func TestElicitThroughAgentElicit(t *testing.T) {
	var mu sync.Mutex
	var got map[string]any
	answer := map[string]any{"action": "accept", "content": map[string]any{"queue": "dev"}}
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.Request = func(_ context.Context, method string, params json.RawMessage) (any, error) {
			if method != methodElicit {
				return nil, nil
			}
			mu.Lock()
			defer mu.Unlock()
			json.Unmarshal(params, &got)
			return answer, nil
		}
	})
	h.initializeEliciting()
	e := elicitor(t, h)
	res, err := e.Elicit(h.ctx, elicitRequest(t, queueSchema))
	if err != nil || res.Action != elicit.Accept || res.Content["queue"] != "dev" {
		t.Fatalf("accept: %+v %v", res, err)
	}
	mu.Lock()
	if got["sessionId"] != "s1" || got["turnId"] != "t1" || got["server"] != "tickets" || got["message"] != `Which queue?\x1b[2J` {
		t.Errorf("params %v", got)
	}
	schema, _ := json.Marshal(got["schema"])
	if !strings.Contains(string(schema), `"title":"Queue\\u202e"`) || !strings.Contains(string(schema), `{"const":"ops","title":"Operations"}`) ||
		!strings.Contains(string(schema), `"required":["queue"]`) {
		t.Errorf("schema %s", schema)
	}
	mu.Unlock()

	for _, tc := range []struct {
		answer map[string]any
		want   string
	}{
		{map[string]any{"action": "accept", "content": map[string]any{"queue": "hr"}}, elicit.Decline},
		{map[string]any{"action": "accept", "content": map[string]any{"queue": 7}}, elicit.Decline},
		{map[string]any{"action": "accept"}, elicit.Decline}, // required queue missing
		{map[string]any{"action": "decline"}, elicit.Decline},
		{map[string]any{"action": "cancel"}, elicit.Cancel},
	} {
		mu.Lock()
		answer = tc.answer
		mu.Unlock()
		res, err := e.Elicit(h.ctx, elicitRequest(t, queueSchema))
		if err != nil || res.Action != tc.want || res.Content != nil {
			t.Errorf("answer %v: %+v %v; want %s", tc.answer, res, err, tc.want)
		}
	}
	mu.Lock()
	answer = map[string]any{"action": "maybe"}
	mu.Unlock()
	if _, err := e.Elicit(h.ctx, elicitRequest(t, queueSchema)); err == nil {
		t.Error("an unknown action is no error")
	}
}

// TestElicitCancelledByTheInterrupt: a client that never answers holds
// the question until the turn ends.
func TestElicitCancelledByTheInterrupt(t *testing.T) {
	h := newHarness(t, func(_ *Options, c *editor.Config) { c.NeverAnswer = []string{methodElicit} })
	h.initializeEliciting()
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() {
		_, err := elicitor(t, h).Elicit(ctx, elicitRequest(t, queueSchema))
		done <- err
	}()
	cancel()
	if err := <-done; err == nil {
		t.Fatal("an unanswered question returned no error after the interrupt")
	}
}

// TestElicitThroughShowMessageRequest: a stock client gets a one-choice
// form as buttons beside Decline (titles made visible), a yes/no field as
// Yes and No; dismissal cancels; any other form is declined without
// asking, with a note for the model.
func TestElicitThroughShowMessageRequest(t *testing.T) {
	var seen *protocol.ShowMessageRequestParams
	choice := "Development"
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.ShowMessageRequest = func(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
			seen = p
			if choice == "" {
				return nil, nil
			}
			return &protocol.MessageActionItem{Title: choice}, nil
		}
	})
	h.initialize(editor.Options{MessageActionItems: true})
	e := elicitor(t, h)
	res, err := e.Elicit(h.ctx, elicitRequest(t, queueSchema))
	if err != nil || res.Action != elicit.Accept || res.Content["queue"] != "dev" {
		t.Fatalf("accept: %+v %v", res, err)
	}
	var titles []string
	for _, a := range seen.Actions {
		titles = append(titles, a.Title)
	}
	if strings.Join(titles, "|") != "Operations|Development|Decline" {
		t.Errorf("buttons %q", titles)
	}
	if want := "The MCP server tickets asks:\nWhich queue?\\x1b[2J\nQueue\\u202e"; seen.Message != want {
		t.Errorf("message %q, want %q", seen.Message, want)
	}

	choice = "Decline"
	if res, _ := e.Elicit(h.ctx, elicitRequest(t, queueSchema)); res.Action != elicit.Decline {
		t.Errorf("decline: %+v", res)
	}
	choice = ""
	if res, _ := e.Elicit(h.ctx, elicitRequest(t, queueSchema)); res.Action != elicit.Cancel {
		t.Errorf("dismissed: %+v", res)
	}
	// A yes/no field; a button titled like Decline is told apart.
	choice = "No"
	if res, _ := e.Elicit(h.ctx, elicitRequest(t, `{"type":"object","properties":{"ok":{"type":"boolean"}}}`)); res.Action != elicit.Accept || res.Content["ok"] != false {
		t.Errorf("boolean: %+v", res)
	}
	choice = "Decline (2)"
	res, _ = e.Elicit(h.ctx, elicitRequest(t, `{"type":"object","properties":{"p":{"type":"string","enum":["Decline","Accept"]}}}`))
	if res.Action != elicit.Accept || res.Content["p"] != "Decline" {
		t.Errorf("a choice named Decline: %+v", res)
	}

	seen = nil
	res, err = e.Elicit(h.ctx, elicitRequest(t, `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"boolean"}}}`))
	if err != nil || res.Action != elicit.Decline || !strings.Contains(res.Note, "cannot show its form") || seen != nil {
		t.Errorf("a form of two fields: %+v %v, asked %v", res, err, seen)
	}
	res, _ = e.Elicit(h.ctx, elicitRequest(t, `{"type":"object","properties":{"a":{"type":"string"}}}`))
	if res.Action != elicit.Decline || seen != nil {
		t.Errorf("a text field: %+v", res)
	}
}
