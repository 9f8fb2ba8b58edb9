package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed update_plan.md
var updatePlanDescription string

// UpdatePlan lets the model keep a visible step-by-step plan. It does
// nothing but publish the plan as a `plan` event.
type UpdatePlan struct{}

var updatePlanSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "explanation": {"type": "string", "description": "Optional note on why the plan changed."},
    "plan": {
      "type": "array",
      "description": "The steps, in order.",
      "items": {
        "type": "object",
        "properties": {
          "step": {"type": "string"},
          "status": {"type": "string", "enum": ["pending", "in_progress", "completed"]}
        },
        "required": ["step", "status"],
        "additionalProperties": false
      }
    }
  },
  "required": ["plan"],
  "additionalProperties": false
}`)

func (UpdatePlan) Spec() Spec {
	return Spec{Type: Function, Name: "update_plan", Description: updatePlanDescription, Parameters: updatePlanSchema}
}

func (UpdatePlan) Kind() event.ToolKind { return event.KindThink }
func (UpdatePlan) Mutating(*Call) bool  { return false }
func (UpdatePlan) Title(*Call) string   { return "Update plan" }

type updatePlanArgs struct {
	Explanation string           `json:"explanation"`
	Plan        []event.PlanStep `json:"plan"`
}

func (UpdatePlan) Handle(_ context.Context, env *Env, call *Call) (Output, error) {
	var args updatePlanArgs
	if err := json.Unmarshal(call.Arguments, &args); err != nil {
		return Output{}, fmt.Errorf("update_plan: invalid arguments: %w", err)
	}
	if args.Plan == nil {
		return Output{}, errors.New("update_plan: missing field `plan`")
	}
	inProgress := 0
	for i, s := range args.Plan {
		switch s.Status {
		case event.StepPending, event.StepCompleted:
		case event.StepInProgress:
			inProgress++
		default:
			return Output{}, fmt.Errorf("update_plan: step %d has status %q; use pending, in_progress or completed", i+1, s.Status)
		}
		if s.Step == "" {
			return Output{}, fmt.Errorf("update_plan: step %d has no text", i+1)
		}
	}
	if inProgress > 1 {
		return Output{}, fmt.Errorf("update_plan: %d steps are in_progress; at most one step can be in_progress at a time", inProgress)
	}
	env.Emit(event.Plan{Explanation: args.Explanation, Steps: args.Plan})
	return Output{Text: "Plan updated"}, nil
}
