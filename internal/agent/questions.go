package agent

import (
	"context"
	"errors"

	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// Asker is a Frontend that can put the model's questions
// (request_user_input) to the user. A frontend that is not one is never
// offered the tool.
type Asker interface {
	// CanAsk reports whether the user of session sessionID can be asked
	// questions at all (an ACP client without elicitation, exec without
	// a terminal cannot).
	CanAsk(sessionID string) bool
	// AskUser asks req.Questions and returns the answers, at most one
	// per question; a question without one was not answered. ctx ends
	// when the turn is interrupted: the questions are then withdrawn. An
	// error says why the questions could not be asked; the model reads
	// it.
	AskUser(ctx context.Context, req *AskRequest) ([]Answer, error)
}

// AskRequest is the model's questions to the user of a session, from one
// call of request_user_input.
type AskRequest struct {
	SessionID string
	TurnID    string
	CallID    string
	Questions []Question
}

// Question, QuestionOption and Answer are request_user_input's (see
// tools.Question).
type (
	Question       = tools.Question
	QuestionOption = tools.QuestionOption
	Answer         = tools.Answer
)

// questionTools is snap with request_user_input offered only where the
// turn may ask (see noQuestions); elsewhere a call of it still runs,
// unoffered, and is told why nobody answers.
func (t *turn) questionTools(snap *tools.Snapshot) *tools.Snapshot {
	if t.noQuestions() != "" {
		return snap.Unoffered(tools.RequestUserInputName)
	}
	return snap
}

// noQuestions says why the turn's model may not ask the user, or "" when
// it may: in plan mode (the mode the turn started in) always, in default
// mode when its family knows the tool (Codex offers it there) and the
// approval policy is not "never"; never in an unattended run, nor when
// the frontend cannot ask.
func (t *turn) noQuestions() string {
	s := t.s
	opts := s.mgr.opts
	if opts.Unattended {
		return "nobody answers questions in this run (agent-ls runs unattended: exec --yes or --full-auto)"
	}
	fe, ok := opts.Frontend.(Asker)
	if !ok || !fe.CanAsk(s.info.SessionID) {
		return "this client cannot put questions to the user"
	}
	return questionsRule(t.plan, s.info.Model, s.info.ApprovalPolicy)
}

// questionsRule is the mode's part of noQuestions.
func questionsRule(plan bool, model string, approval policy.ApprovalPolicy) string {
	if plan {
		return ""
	}
	if fam, _ := familyOf(model); !fam.requestUserInput {
		return "request_user_input is unavailable in Default mode for this model"
	}
	if approval == policy.Never {
		return "request_user_input is unavailable in Default mode under the approval policy \"never\""
	}
	return ""
}

// turnAsker is the tools.Asker of one turn: the frontend, if the session
// may ask.
type turnAsker struct{ t *turn }

func (a turnAsker) AskUser(ctx context.Context, callID string, qs []tools.Question) ([]tools.Answer, error) {
	s := a.t.s
	if why := a.t.noQuestions(); why != "" {
		return nil, errors.New(why + "; decide yourself and say what you assumed, or ask in your answer")
	}
	fe := s.mgr.opts.Frontend.(Asker)
	return fe.AskUser(ctx, &AskRequest{SessionID: s.info.SessionID, TurnID: a.t.id, CallID: callID, Questions: qs})
}
