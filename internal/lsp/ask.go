package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// methodAskUser puts the model's questions (request_user_input) to a
// client that shows them (capability experimental.agent.questions;
// protocol section "Questions to the user").
const methodAskUser = "agent/askUser"

type askUserParams struct {
	SessionID string           `json:"sessionId"`
	TurnID    string           `json:"turnId"`
	CallID    string           `json:"callId"`
	Questions []agent.Question `json:"questions"`
}

type askUserResult struct {
	Answers []agent.Answer `json:"answers"`
}

// CanAsk: every LSP client can be asked, by agent/askUser or
// window/showMessageRequest.
func (s *server) CanAsk(string) bool { return true }

// AskUser puts the model's questions to the user (agent.Asker): with
// agent/askUser where the client opted in, else one at a time with
// window/showMessageRequest, the options as its actions (a stock client
// has no free-form "Other"); a dismissed question is left unanswered and
// the next one asked. The turn's end (an interrupt) cancels the request
// ($/cancelRequest): the questions are withdrawn.
func (s *server) AskUser(ctx context.Context, req *agent.AskRequest) ([]agent.Answer, error) {
	if err := s.out.drained(ctx); err != nil {
		return nil, err
	}
	if s.capabilities().AgentQuestions {
		p := askUserParams{SessionID: req.SessionID, TurnID: req.TurnID, CallID: req.CallID, Questions: req.Questions}
		var res askUserResult
		if err := protocol.Call(ctx, s.conn, methodAskUser, p, &res); err != nil {
			return nil, fmt.Errorf("%s: %w", methodAskUser, err)
		}
		return res.Answers, nil
	}
	var answers []agent.Answer
	for i := range req.Questions {
		q := &req.Questions[i]
		params := &protocol.ShowMessageRequestParams{Type: protocol.MessageTypeInfo, Message: questionMessage(q, i, len(req.Questions))}
		for _, o := range q.Options {
			params.Actions = append(params.Actions, protocol.MessageActionItem{Title: textcut.VisibleLine(o.Label)})
		}
		item, err := protocol.ClientDispatcher(s.conn).ShowMessageRequest(ctx, params)
		if err != nil {
			return nil, fmt.Errorf("window/showMessageRequest: %w", err)
		}
		if item == nil {
			continue // dismissed: not answered
		}
		label, ok := chosenOption(q, item.Title)
		if !ok {
			return nil, fmt.Errorf("window/showMessageRequest: unknown action %q", item.Title)
		}
		answers = append(answers, agent.Answer{ID: q.ID, Label: label})
	}
	return answers, nil
}

// chosenOption is the label of q's option whose action title is title.
func chosenOption(q *agent.Question, title string) (string, bool) {
	for _, o := range q.Options {
		if textcut.VisibleLine(o.Label) == title {
			return o.Label, true
		}
	}
	return "", false
}

// questionMessage is the plain text of question i of n for a stock
// client: the header and the question, then each option's description.
// The model wrote all of it: its control and bidi characters are shown
// as escapes.
func questionMessage(q *agent.Question, i, n int) string {
	var b strings.Builder
	b.WriteString("agent-ls asks")
	if n > 1 {
		fmt.Fprintf(&b, " (%d of %d)", i+1, n)
	}
	if q.Header != "" {
		b.WriteString(" · " + textcut.VisibleLine(q.Header))
	}
	b.WriteString(":\n" + textcut.Visible(q.Question))
	for _, o := range q.Options {
		fmt.Fprintf(&b, "\n• %s", textcut.VisibleLine(o.Label))
		if o.Description != "" {
			b.WriteString(": " + textcut.VisibleLine(o.Description))
		}
	}
	return b.String()
}

var _ agent.Asker = (*server)(nil)
