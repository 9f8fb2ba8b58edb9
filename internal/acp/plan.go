package acp

// Plan mode: a config option plan (off/on) beside the approval presets of
// mode, and the slash command /approve that approves the plan.

import (
	"context"
	"errors"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// The values of the plan config option.
const (
	planOff = "off"
	planOn  = "on"
)

// approveCommand approves the plan of a session in plan mode.
var approveCommand = sdk.AvailableCommand{Name: "approve", Description: "Approve the plan: leave plan mode and carry the plan out"}

// planOption is the plan config option of a session whose settings are
// info: a select of off and on, as clients show selects everywhere.
func planOption(info agent.SessionInfo) sdk.SessionConfigOption {
	cur := planOff
	if info.Mode == agent.ModePlan {
		cur = planOn
	}
	opts := sdk.SessionConfigSelectOptionsUngrouped([]sdk.SessionConfigSelectOption{
		{Value: planOff, Name: "Off", Description: sdk.Ptr("The agent works as the mode allows")},
		{Value: planOn, Name: "On", Description: sdk.Ptr("The agent investigates without changing anything, in the read-only sandbox, and ends with a plan; /approve carries it out")},
	})
	return sdk.SessionConfigOption{Select: &sdk.SessionConfigOptionSelect{Type: "select", Id: "plan", Name: "Plan mode",
		Description:  sdk.Ptr("Plan first: nothing changes until you approve the plan with /approve"),
		CurrentValue: sdk.SessionConfigValueId(cur), Options: sdk.SessionConfigSelectOptions{Ungrouped: &opts}}}
}

// setPlan turns plan mode on or off, from the session's next turn on.
func (s *server) setPlan(ss *session, value string) error {
	mode := agent.ModeDefault
	switch value {
	case planOff:
	case planOn:
		mode = agent.ModePlan
	default:
		return invalidParams("unknown value %q of plan (want on or off)", value)
	}
	return s.update(ss, func(o *agent.SessionOptions) { o.Mode = mode })
}

// approve approves the session's plan: a turn that carries it out, run
// like a prompt (behind a running turn it waits in the queue). Outside
// plan mode, or with no plan yet, the agent's message says why.
func (s *server) approve(ctx context.Context, a Agent, ss *session) (sdk.PromptResponse, error) {
	var refused error
	resp, err := s.runTurn(ss, true, func(agentID string) (*agent.Turn, error) {
		sub, err := a.ApprovePlan(agentID)
		if errors.Is(err, agent.ErrNotPlanning) || errors.Is(err, agent.ErrNoPlan) {
			refused = err
		}
		return sub.Turn, err
	})
	if refused == nil {
		return resp, err
	}
	s.push(ss, sdk.UpdateAgentMessageText("Nothing to approve: "+refused.Error()+"."))
	s.out.flush(ctx)
	return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
}

// modeChanged shows a session's new mode in its plan config option (the
// agent changed it: an approved plan). Called with ss.mu held.
func (s *server) modeChanged(ss *session, mode agent.Mode) {
	if ss.info.Mode == mode {
		return
	}
	ss.info.Mode = mode
	s.push(ss, sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{SessionUpdate: "config_option_update",
		ConfigOptions: s.configOptionsOf(ss.info, ss.effort)}})
}
