package acp

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// steerCommand sends a message into the running turn (ACP has no method
// for it): the model reads it before its next request.
var steerCommand = sdk.AvailableCommand{Name: "steer", Description: "Send a message into the running turn: the agent reads it before its next step (with no turn running, it starts one)",
	Input: &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: "message"}}}

// steer runs /steer TEXT like a prompt that joins the running turn: it
// answers when that turn ends (a message that came too late for it
// answers when its own turn, first in the queue, ends). With no turn
// running the message starts one.
func (s *server) steer(ctx context.Context, a Agent, ss *session, text string) (sdk.PromptResponse, error) {
	if text == "" {
		s.push(ss, sdk.UpdateAgentMessageText("Nothing to send: /steer takes the message to send into the running turn."))
		s.out.flush(ctx)
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	return s.runTurn(ss, true, func(agentID string) (*agent.Turn, error) {
		res, err := a.Steer(agentID, agent.TurnInput{Prompt: text}, "")
		if err != nil {
			return nil, err
		}
		if res.Turn == nil {
			return nil, errors.New("the steer has no turn to wait for")
		}
		return res.Turn, nil
	})
}
