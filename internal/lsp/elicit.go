package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/elicit"
)

// methodElicit puts an MCP server's question to a client that shows
// forms (capability experimental.agent.elicitation; protocol section 6).
const methodElicit = "agent/elicit"

// declineTitle is the stock client's button that declines.
const declineTitle = "Decline"

type elicitParams struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
	Server    string `json:"server"`
	Message   string `json:"message"`
	// Schema is the form as agent-ls read it (elicit.Schema.Wire).
	Schema map[string]any `json:"schema,omitempty"`
	// URL is for URL-mode questions, which agent-ls does not yet ask.
	URL string `json:"url,omitempty"`
}

type elicitResult struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// Elicit asks the user an MCP server's question (agent.Elicitor): with
// agent/elicit where the client opted in; else, for a form of one enum or
// boolean field, with window/showMessageRequest, its choices as buttons
// beside Decline; any other form is declined, and the model told why.
// The turn's end (an interrupt) cancels the request. Everything shown
// comes through elicit's Shown, ShownLine and Wire: escapes visible,
// lengths bounded.
func (s *server) Elicit(ctx context.Context, req *agent.ElicitRequest) (elicit.Result, error) {
	if err := s.out.drained(ctx); err != nil {
		return elicit.Result{}, err
	}
	if s.capabilities().AgentElicitation {
		return s.elicitForm(ctx, req)
	}
	f, ok := req.Schema.OneChoice()
	if !ok {
		return elicit.Result{Action: elicit.Decline,
			Note: "the MCP server's question was declined: the editor cannot show its form (it shows only a single choice)"}, nil
	}
	buttons := f.Buttons(declineTitle)
	params := &protocol.ShowMessageRequestParams{Type: protocol.MessageTypeInfo, Message: elicitMessage(req, f)}
	for _, b := range buttons {
		params.Actions = append(params.Actions, protocol.MessageActionItem{Title: b.Title})
	}
	params.Actions = append(params.Actions, protocol.MessageActionItem{Title: declineTitle})
	item, err := protocol.ClientDispatcher(s.conn).ShowMessageRequest(ctx, params)
	switch {
	case err != nil:
		return elicit.Result{}, fmt.Errorf("window/showMessageRequest: %w", err)
	case item == nil:
		return elicit.Result{Action: elicit.Cancel}, nil
	case item.Title == declineTitle:
		return elicit.Result{Action: elicit.Decline}, nil
	}
	for _, b := range buttons {
		if b.Title == item.Title {
			return elicit.Result{Action: elicit.Accept, Content: map[string]any{f.Name: b.Value}}, nil
		}
	}
	return elicit.Result{}, fmt.Errorf("window/showMessageRequest: unknown action %q", item.Title)
}

// elicitForm asks with agent/elicit. Content that does not fit the form
// declines: it never goes to the server.
func (s *server) elicitForm(ctx context.Context, req *agent.ElicitRequest) (elicit.Result, error) {
	p := elicitParams{SessionID: req.SessionID, TurnID: req.TurnID, Server: elicit.ShownLine(req.Server, elicit.MaxLabel),
		Message: elicit.Shown(req.Message, elicit.MaxMessage), Schema: req.Schema.Wire()}
	var res elicitResult
	if err := protocol.Call(ctx, s.conn, methodElicit, p, &res); err != nil {
		return elicit.Result{}, fmt.Errorf("%s: %w", methodElicit, err)
	}
	switch res.Action {
	case elicit.Accept:
		content, err := req.Schema.Check(res.Content)
		if err != nil {
			s.log.Warn("agent/elicit: the answer does not fit the form; declined", "err", err)
			return elicit.Result{Action: elicit.Decline, Note: "the MCP server's question was declined: the editor's answer did not fit its form"}, nil
		}
		return elicit.Result{Action: elicit.Accept, Content: content}, nil
	case elicit.Decline, elicit.Cancel:
		return elicit.Result{Action: res.Action}, nil
	}
	return elicit.Result{}, fmt.Errorf("%s: unknown action %q", methodElicit, res.Action)
}

// elicitMessage is the plain text of a one-field question: who asks,
// what, and about which field.
func elicitMessage(req *agent.ElicitRequest, f *elicit.Field) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The MCP server %s asks:\n%s\n%s", elicit.ShownLine(req.Server, elicit.MaxLabel),
		elicit.Shown(req.Message, elicit.MaxMessage), f.Label())
	if f.Description != "" {
		b.WriteString(": " + elicit.ShownLine(f.Description, elicit.MaxLabel))
	}
	return b.String()
}

var _ agent.Elicitor = (*server)(nil)
