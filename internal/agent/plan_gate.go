package agent

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// What plan mode refuses, before any tool runs and without asking the
// user. The approver refuses the same actions again where they reach it
// (turnApprover), so a tool that changes files by another way is held
// too.

// fileTools are the tools whose every call changes files.
var fileTools = map[string]bool{"apply_patch": true, "write_file": true, "lsp_rename": true}

// planGate is the hook of a turn in plan mode.
func planGate(*turn) tools.Hook {
	return tools.Hook{Name: "plan mode", Before: func(_ context.Context, env *tools.Env, h tools.Handler, call *tools.Call) tools.Decision {
		if what := planRefuses(env, h, call); what != "" {
			return tools.Decision{Reason: planRefusal(what)}
		}
		return tools.Decision{Allowed: true}
	}}
}

// planRefuses says what call of h would change, "" when plan mode lets it
// run: calls of the file tools (and of any tool whose kind is a change of
// files), of MCP tools their server does not mark read-only, and input
// for a command session outside the read-only sandbox.
func planRefuses(env *tools.Env, h tools.Handler, call *tools.Call) string {
	switch h.Kind() {
	case event.KindEdit, event.KindDelete, event.KindMove:
		return call.Name + " changes files"
	}
	if fileTools[call.Name] {
		return call.Name + " changes files"
	}
	if sp := h.Spec(); sp.Server != "" && h.Mutating(call) {
		return sp.ServerTool + " of the MCP server " + sp.Server + " is not marked read-only, so it may change things"
	}
	if call.Name != "write_stdin" {
		return ""
	}
	var a struct {
		SessionID float64 `json:"session_id"`
		Chars     string  `json:"chars"`
	}
	if err := json.Unmarshal(call.Arguments, &a); err == nil && a.Chars == "" {
		return "" // a poll only reads
	}
	id := int(a.SessionID)
	if env.Terminals != nil && float64(id) == a.SessionID && env.Terminals.ReadOnly(id) {
		return ""
	}
	return "command session " + strconv.FormatFloat(a.SessionID, 'f', -1, 64) + " was not started in plan mode, so what is typed into it may change files"
}

// instructions are the turn's instructions: the base ones, and in plan
// mode what plan mode asks of the model.
func (t *turn) instructions() string {
	if t.plan {
		return baseInstructions + "\n\n" + planInstructions
	}
	return baseInstructions
}
