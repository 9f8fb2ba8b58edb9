package agent

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// ToolHooks are the user's own checks around tool calls (the `[[hooks]]`
// of the config file). The agent calls them for every tool call of a
// turn, read-only calls in parallel, so they must be safe for concurrent
// use. An error is logged as a warning and blocks nothing.
type ToolHooks interface {
	// BeforeTool runs once the call's arguments are valid, before the
	// tool runs and before the user is asked to approve it. A non-empty
	// deny refuses the call: the tool does not run and deny is the
	// output the model gets, in words for it.
	BeforeTool(ctx context.Context, use ToolUse) (deny string, err error)
	// AfterTool runs once the call has its result, whether the tool ran
	// or not. A non-empty abort ends the turn once the calls under way
	// finished: it fails, with abort as its error, in words for the user
	// (naming the hook). Calls of the turn not yet started do not run.
	AfterTool(ctx context.Context, use ToolUse, outcome ToolOutcome) (abort string, err error)
}

// ToolUse is one tool call as the hooks see it.
type ToolUse struct {
	SessionID string
	TurnID    string
	// Cwd is the session's working directory.
	Cwd    string
	CallID string
	// Name is the tool's name as the model called it.
	Name string
	// Kind is the tool's kind (event.KindOther for an unknown tool).
	Kind event.ToolKind
	// Arguments is what the model sent: the JSON object of a function
	// call, or the raw input of a freeform call (apply_patch) as a JSON
	// string.
	Arguments json.RawMessage
}

// ToolOutcome is what became of a call.
type ToolOutcome struct {
	// Ran is false when the tool did not run: refused by a hook, by the
	// user or by policy, an unknown tool, invalid arguments.
	Ran bool
	// Success: the tool ran and reported no failure.
	Success bool
	// Output is what the model gets.
	Output string
}

// turnHooks ties the manager's ToolHooks to one turn: it fills in the
// turn's ids, logs the hooks' failures, and remembers the first abort.
type turnHooks struct {
	t     *turn
	hooks ToolHooks
	log   *slog.Logger

	mu    sync.Mutex
	abort string // the first abort an after hook asked for
}

// aborted returns the reason an after hook gave to end the turn, or "".
func (th *turnHooks) aborted() string {
	th.mu.Lock()
	defer th.mu.Unlock()
	return th.abort
}

// toolHook is the tools.Hook that runs the user's hooks around each call.
func (th *turnHooks) toolHook() tools.Hook {
	return tools.Hook{Name: "user hooks", Before: th.before, After: th.after}
}

func (th *turnHooks) use(h tools.Handler, call *tools.Call) ToolUse {
	s := th.t.s
	kind := event.KindOther
	if h != nil {
		kind = h.Kind()
	}
	return ToolUse{SessionID: s.info.SessionID, TurnID: th.t.id, Cwd: s.info.Cwd, CallID: call.CallID,
		Name: call.Name, Kind: kind, Arguments: callArguments(call)}
}

func (th *turnHooks) before(ctx context.Context, env *tools.Env, h tools.Handler, call *tools.Call) tools.Decision {
	if reason := th.aborted(); reason != "" {
		return tools.Decision{Reason: "not run: the turn was stopped: " + reason}
	}
	deny, err := th.hooks.BeforeTool(ctx, th.use(h, call))
	if err != nil && ctx.Err() == nil { // an interrupt is no failure of the hook
		th.log.Warn("before_tool_use hook failed; the call goes on", "tool", call.Name, "call", call.CallID, "err", err)
	}
	if deny != "" {
		th.log.Info("a before_tool_use hook denied the call", "tool", call.Name, "call", call.CallID, "reason", deny)
		return tools.Decision{Reason: deny}
	}
	return tools.Decision{Allowed: true}
}

func (th *turnHooks) after(ctx context.Context, env *tools.Env, h tools.Handler, call *tools.Call, res tools.Result) {
	if th.aborted() != "" || ctx.Err() != nil {
		return // the turn is ending: nothing more for the hooks to judge
	}
	outcome := ToolOutcome{Ran: res.Ran, Success: res.Ran && !res.Output.Failed, Output: res.Output.Text}
	abort, err := th.hooks.AfterTool(ctx, th.use(h, call), outcome)
	if err != nil && ctx.Err() == nil {
		th.log.Warn("after_tool_use hook failed", "tool", call.Name, "call", call.CallID, "err", err)
	}
	if abort == "" {
		return
	}
	th.log.Info("an after_tool_use hook stopped the turn", "tool", call.Name, "call", call.CallID, "reason", abort)
	th.mu.Lock()
	defer th.mu.Unlock()
	if th.abort == "" {
		th.abort = abort
	}
}
