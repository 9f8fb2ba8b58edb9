package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/elicit"
)

// otherSuffix names a question's free-form "Other" field in the form.
const otherSuffix = "_other"

// CanAsk: the model's questions need a client that shows forms
// (elicitation/create, form mode); to any other the tool is not offered,
// and the model asks in its answer instead.
func (s *server) CanAsk(string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.client.Elicitation != nil && s.client.Elicitation.Form != nil
}

// AskUser puts the model's questions (request_user_input) to the user as
// one elicitation/create form tied to the session and the tool call: per
// question, a choice of its options and an optional "Other" text. Accept
// answers what was filled in, Decline answers nothing, Cancel (or the
// turn's interrupt) withdraws the questions.
func (s *server) AskUser(ctx context.Context, req *agent.AskRequest) ([]agent.Answer, error) {
	s.mu.Lock()
	ss := s.byAgent[req.SessionID]
	s.mu.Unlock()
	if ss == nil || !s.CanAsk(req.SessionID) {
		return nil, errors.New("the client cannot show questions")
	}
	if err := s.out.flush(ctx); err != nil {
		return nil, err
	}
	schema := questionForm(req.Questions)
	w := schema.Wire()
	message := "agent-ls asks"
	if len(req.Questions) == 1 {
		message += ": " + elicit.Shown(req.Questions[0].Question, elicit.MaxMessage)
	}
	form := &sdk.UnstableCreateElicitationForm{Mode: "form", Message: message,
		RequestedSchema: sdk.UnstableElicitationSchema{Type: "object"},
		Meta:            map[string]any{scopeKey: map[string]any{"sessionId": ss.id, "toolCallId": req.CallID}}}
	form.RequestedSchema.Properties, _ = w["properties"].(map[string]any)
	form.RequestedSchema.Required, _ = w["required"].([]string)
	resp, err := s.conn.UnstableCreateElicitation(ctx, sdk.UnstableCreateElicitationRequest{Form: form})
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, fmt.Errorf("elicitation/create: %w", err)
	case resp.Accept != nil:
		content, err := schema.Check(resp.Accept.Content)
		if err != nil {
			return nil, fmt.Errorf("the client's answer does not fit the questions: %w", err)
		}
		return formAnswers(req.Questions, content), nil
	case resp.Decline != nil:
		return nil, nil
	case resp.Cancel != nil:
		return nil, errors.New("the user cancelled the questions")
	}
	return nil, errors.New("elicitation/create: an answer of no known action")
}

// questionForm is the form of qs: for question n, the field "<n>_<id>",
// a choice of its options (titled by the header, described by the
// question and the options' descriptions), and "<n>_<id>_other", free
// text; none required. The numbers keep the fields in the questions'
// order where a client sorts them by name.
func questionForm(qs []agent.Question) *elicit.Schema {
	s := &elicit.Schema{}
	for i := range qs {
		q := &qs[i]
		name := fieldName(i, q)
		var desc strings.Builder
		desc.WriteString(q.Question)
		choices := make([]elicit.Choice, len(q.Options))
		for j, o := range q.Options {
			choices[j] = elicit.Choice{Value: o.Label, Title: o.Label}
			if o.Description != "" {
				desc.WriteString("\n• " + o.Label + ": " + o.Description)
			}
		}
		s.Fields = append(s.Fields,
			elicit.Field{Name: name, Kind: elicit.Enum, Title: q.Header, Description: desc.String(), Choices: choices, MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1},
			elicit.Field{Name: name + otherSuffix, Kind: elicit.String, Title: otherTitle(q), Description: "Or answer in your own words.",
				MinLength: -1, MaxLength: -1, MinItems: -1, MaxItems: -1})
	}
	return s
}

// otherTitle is the title of q's "Other" field.
func otherTitle(q *agent.Question) string {
	if strings.TrimSpace(q.Header) == "" {
		return "Other"
	}
	return "Other (" + q.Header + ")"
}

func fieldName(i int, q *agent.Question) string { return strconv.Itoa(i+1) + "_" + q.ID }

// formAnswers reads the answers out of a checked form's content.
func formAnswers(qs []agent.Question, content map[string]any) []agent.Answer {
	var answers []agent.Answer
	for i := range qs {
		name := fieldName(i, &qs[i])
		label, _ := content[name].(string)
		text, _ := content[name+otherSuffix].(string)
		if label != "" || strings.TrimSpace(text) != "" {
			answers = append(answers, agent.Answer{ID: qs[i].ID, Label: label, Text: text})
		}
	}
	return answers
}

var _ agent.Asker = (*server)(nil)
