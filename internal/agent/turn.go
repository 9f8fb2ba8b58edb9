package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync/atomic"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// turn is one user prompt and everything the agent does until it stops.
type turn struct {
	s           *session
	id          string
	input       TurnInput
	cancel      context.CancelFunc
	done        chan struct{}
	interrupted atomic.Bool
	approvals   atomic.Int64 // numbers the turn's approvals
	files       turnFiles    // what the turn changed
	// cp is the turn's checkpoint, nil until its prompt is in the
	// history (and for a turn that only compacts).
	cp     *TurnCheckpoint
	result TurnResult // set before done closes
	// ending is closed when the turn has finished its work and is about to
	// report turnCompleted: a client that acts on that event must not be
	// told the turn still runs.
	ending chan struct{}

	lastMessage string
	// refused: the last message is the model's refusal.
	refused bool
	// promptAt is where the turn's prompt is in the history, -1 for a
	// turn without one (it only compacts).
	promptAt int
	// steered are the senders of queued prompts the turn took as steers
	// (steer.go), told how it ended.
	steered []*waiter
	// plan: the turn runs in plan mode (plan.go), its commands with
	// readOnly, the session's boundary with the read-only sandbox.
	plan     bool
	readOnly *policy.Boundary
}

// run is the turn loop: ask the model, run the tools it calls, feed the
// results back, until it answers without calling tools, the user
// interrupts, or the request limit is hit.
func (t *turn) run(ctx context.Context) {
	s := t.s
	started := event.TurnStarted{Prompt: t.input.Prompt}
	if t.plan {
		started.Mode = string(ModePlan)
	}
	t.emit(started)
	log := s.mgr.log.With("session", s.info.SessionID, "turn", t.id)
	log.Info("turn started")
	// Command sessions started under wider settings than the turn's end
	// before it (those a running turn started after the change).
	s.narrowTerminals(s.info.SessionID, allowanceOf(s.info, s.cfg))
	input, err := t.expandPrompt(ctx)
	if err != nil {
		// A prompt of a server that cannot run is the user's to fix:
		// the model is not asked.
		end := turnEnd{status: event.StatusFailed, err: err.Error()}
		if ctx.Err() != nil {
			end = turnEnd{status: event.StatusInterrupted}
		}
		t.finish(end, log)
		return
	}
	t.appendPrompt(input)
	env, hooks := t.toolEnv(log)
	fam := familyFor(s.info.Model, log)
	if t.warnNearLimit(ctx, fam, log) {
		t.finish(turnEnd{status: event.StatusInterrupted}, log)
		return
	}
	t.finish(t.loop(ctx, env, hooks, fam, log), log)
}

// turnEnd is how a turn's loop ended.
type turnEnd struct {
	status event.TurnStatus
	err    string // why it failed
	// limited: it reached its limit of model requests.
	limited bool
}

// appendPrompt puts the turn's prompt into the history (input when it
// expanded to that, see expandPrompt): after the context items a new
// history starts with, and after what the settings are now when they
// changed since the history began.
func (t *turn) appendPrompt(input []model.Item) {
	s := t.s
	if s.history.prime(s.contextItems) {
		s.changed = false // the context items say what it runs with now
	}
	start := s.history.Len()
	if s.changed {
		// The settings changed since the history began: the model
		// learns the new ones before the prompt.
		s.changed = false
		s.history.Append(model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: s.environmentContext()})
	}
	if note, ok := s.takeNotes(); ok {
		s.history.Append(note)
	}
	if input == nil {
		input = []model.Item{userMessage(t.input, s.info.Cwd)}
	}
	s.history.Append(input...)
	t.promptAt = s.history.Len() - 1
	t.cp = s.checkpoints.begin(t.id, start, s.history.generation())
	s.obs.Checkpoint(s.checkpoints.copy(t.cp))
}

// toolEnv is what the turn's tool calls run with, and the user's hooks
// around them (nil when there are none).
func (t *turn) toolEnv(log *slog.Logger) (*tools.Env, *turnHooks) {
	s, opts := t.s, t.s.mgr.opts
	env := &tools.Env{Cwd: s.info.Cwd, Emit: t.emit, Files: opts.Files, Boundary: s.boundary, Approver: startingApprover{turnApprover{t}}, Changes: turnChanger{t}, Asker: turnAsker{t}, Language: t.language(), Terminals: s.terminals,
		Exec: s.execConfig(opts.HelperPath), Log: log}
	if t.plan {
		// Commands run in the read-only sandbox, with the network off
		// (protocol section 8); what would change anything is refused.
		env.Boundary, env.Exec.Network = t.readOnly, false
		env.Hooks = append(env.Hooks, planGate(t))
	}
	if !t.plan {
		env.Hooks = append(env.Hooks, t.commandHook())
	}
	var hooks *turnHooks
	if opts.Hooks != nil {
		hooks = &turnHooks{t: t, hooks: opts.Hooks, log: log}
		env.Hooks = append(env.Hooks, hooks.toolHook())
	}
	return env, hooks
}

// loop asks the model and runs the tools it calls until it answers
// without calling any, the turn is interrupted or fails, or it reaches
// its request limit.
func (t *turn) loop(ctx context.Context, env *tools.Env, hooks *turnHooks, fam family, log *slog.Logger) turnEnd {
	s := t.s
	compacted := false
	for n := 0; ; n++ {
		if n == s.cfg.MaxRequests {
			return turnEnd{status: event.StatusFailed, err: fmt.Sprintf("the turn reached its limit of %d model requests", s.cfg.MaxRequests), limited: true}
		}
		// What the user sent or did meanwhile goes in first.
		if n > 0 {
			if note, ok := s.takeNotes(); ok {
				s.history.Append(note)
			}
		}
		t.takeSteers()
		// Each request offers the tools registered now (MCP servers come
		// and go, the first request waits for those still starting); its
		// calls run against the same snapshot.
		snap := t.questionTools(s.toolSnapshot(ctx))
		// Near the context window, the history is summarised first
		// (once per answer of the model: a history that stays over the
		// limit after it goes to the model as it is).
		if limit := s.autoCompactLimit(fam); limit > 0 && !compacted && s.contextEstimate() >= limit {
			compacted = true
			if t.autoCompact(ctx, fam, snap.Specs(), log) {
				return turnEnd{status: event.StatusInterrupted}
			}
		}
		resp, err := t.request(ctx, fam, snap.Specs())
		if err != nil {
			if ctx.Err() != nil {
				return turnEnd{status: event.StatusInterrupted}
			}
			return turnEnd{status: event.StatusFailed, err: err.Error()}
		}
		compacted = false
		calls := t.collectCalls(resp.Output, snap)
		if len(calls) == 0 {
			if t.steersWaiting() {
				continue // the model answers what the user sent meanwhile
			}
			return turnEnd{status: event.StatusCompleted}
		}
		results := snap.Run(ctx, env, calls, t.finished)
		for i, c := range calls {
			s.history.Append(outputItem(c, results[i].Output))
		}
		if hooks != nil {
			if reason := hooks.aborted(); reason != "" {
				return turnEnd{status: event.StatusFailed, err: reason}
			}
		}
		if ctx.Err() != nil {
			return turnEnd{status: event.StatusInterrupted}
		}
	}
}

// autoCompact summarises the history before a request that would come
// near the context window; a failure leaves the history as it is. It
// reports whether the turn was interrupted meanwhile.
func (t *turn) autoCompact(ctx context.Context, fam family, specs []tools.Spec, log *slog.Logger) (interrupted bool) {
	switch err := t.compact(ctx, fam, specs); {
	case err == nil:
	case ctx.Err() != nil:
		return true
	case errors.Is(err, errNothingToSummarise):
		log.Debug("over the compaction limit with nothing to summarise", "err", err)
	default:
		log.Warn("the conversation could not be compacted; the request goes as it is", "err", err)
	}
	return false
}

// finish keeps what the turn changed for undo, sets its result and
// reports how it ended.
func (t *turn) finish(end turnEnd, log *slog.Logger) {
	s := t.s
	if t.interrupted.Load() && end.status == event.StatusFailed {
		end.status, end.err = event.StatusInterrupted, ""
	}
	log.Info("turn ended", "status", end.status, "error", end.err)
	diff := t.files.diff(s.info.Cwd)
	if !t.files.empty() {
		if ut, err := s.undo.keep(t.id, &t.files); err != nil {
			log.Warn("this turn cannot be undone", "err", err)
		} else {
			s.obs.UndoKept(t.id, ut.files, ut.spool)
		}
	}
	if t.cp != nil {
		s.obs.Checkpoint(s.checkpoints.copy(t.cp))
		for _, cp := range s.checkpoints.keepWithin(log) {
			s.obs.Checkpoint(cp)
		}
	}
	if end.status == event.StatusInterrupted && len(s.terminals.Running()) > 0 {
		s.mu.Lock()
		s.interruptedTerminals = true
		s.mu.Unlock()
	}
	t.result = TurnResult{Status: end.status, Error: end.err, LastMessage: t.lastMessage, RequestLimit: end.limited && end.status == event.StatusFailed,
		Refused: t.refused && end.status == event.StatusCompleted}
	close(t.ending)
	t.emit(event.TurnCompleted{Status: end.status, Error: end.err, LastMessage: t.lastMessage, Diff: diff})
	t.ended(end.status)
}

func (t *turn) emit(p event.Payload) { t.s.emit(t.id, p) }

// request streams one model request, forwarding deltas as they arrive, and
// appends what the model produced to the history. On failure the items
// the model had finished are kept, with calls answered as aborted so the
// history stays valid for the next request.
func (t *turn) request(ctx context.Context, fam family, specs []tools.Spec) (*model.Response, error) {
	s := t.s
	req := t.newRequest(fam, specs, s.history.Items())
	var finished []model.Item // items finished by the current attempt
	emit := func(ev model.Event) {
		switch ev.Kind {
		case model.TextDelta:
			t.emit(event.MessageDelta{ItemID: ev.ItemID, Delta: ev.Delta})
		case model.ReasoningDelta:
			t.emit(event.ReasoningDelta{ItemID: ev.ItemID, Delta: ev.Delta})
		case model.Retrying:
			finished = finished[:0]
			t.emit(event.Retry{Attempt: ev.Retry.Attempt, DelayMs: ev.Retry.DelayMs, Message: ev.Retry.Message})
		case model.ItemStarted:
			if ev.Item != nil && ev.Item.Type == model.ItemWebSearchCall {
				// The search has begun: "searching" now, its query and
				// sources when it is done.
				t.emit(webSearchEvent(ev.ItemID, ev.Item))
			}
		case model.ItemDone:
			it := *ev.Item
			if it.ID == "" {
				it.ID = ev.ItemID
			}
			finished = append(finished, it)
			t.itemDone(ev.ItemID, &it)
		}
	}
	resp, err := s.client.Stream(ctx, req, emit)
	if err != nil {
		for _, it := range finished {
			s.history.Append(it)
			if it.Type == model.ItemFunctionCall || it.Type == model.ItemCustomToolCall {
				s.history.Append(outputItem(callOf(it), tools.Output{Text: tools.AbortedOutput, Failed: true}))
			}
		}
		return nil, err
	}
	s.history.Append(resp.Output...)
	contextTokens := resp.Usage.InputTokens + resp.Usage.OutputTokens
	s.reported.tokens, s.reported.items = contextTokens, s.history.Len()
	t.reportUsage(fam, resp, contextTokens)
	return resp, nil
}

// newRequest is a request of the session's model with its instructions,
// the tools of specs and input, and the settings the model family takes.
func (t *turn) newRequest(fam family, specs []tools.Spec, input []model.Item) *model.Request {
	s := t.s
	req := &model.Request{
		Model:             s.info.Model,
		Instructions:      t.instructions(),
		Input:             input,
		Tools:             modelTools(specs),
		PromptCacheKey:    s.info.SessionID,
		FunctionToolsOnly: !fam.freeformTools,
		WebSearch:         fam.webSearch && s.cfg.WebSearch,
	}
	if fam.reasoningEffort {
		req.ReasoningEffort = s.cfg.ReasoningEffort
	}
	// "none" is how the config file says no summary.
	if fam.reasoningSummaries && s.cfg.ReasoningSummary != "none" {
		req.ReasoningSummary = s.cfg.ReasoningSummary
	}
	if fam.verbosity {
		req.Verbosity = s.cfg.Verbosity
	}
	return req
}

// reportUsage adds one response's token use to the session's and sends
// the usage event; contextTokens is what the next request will carry.
func (t *turn) reportUsage(fam family, resp *model.Response, contextTokens int64) {
	s := t.s
	used := resp.Usage
	u := event.Usage{
		RateLimits:        usageRateLimits(resp.RateLimits),
		InputTokens:       used.InputTokens,
		CachedInputTokens: used.CachedInputTokens,
		OutputTokens:      used.OutputTokens,
		ReasoningTokens:   used.ReasoningTokens,
		ContextTokens:     contextTokens,
		ContextWindow:     s.contextWindow(fam),
	}
	s.mu.Lock()
	s.usage.Add(u)
	total := s.usage
	s.mu.Unlock()
	u.Total = &total
	s.keepRateLimits(u.RateLimits)
	t.emit(u)
}

// itemDone reports a finished message or reasoning item.
func (t *turn) itemDone(id string, it *model.Item) {
	switch it.Type {
	case model.ItemMessage:
		if it.Role == model.RoleAssistant || it.Role == "" {
			t.lastMessage, t.refused = it.Text, it.Refused
			t.emit(event.Message{ItemID: id, Text: it.Text})
		}
	case model.ItemReasoning:
		text := strings.Join(it.Summary, "\n\n")
		if text == "" {
			text = strings.Join(it.ReasoningText, "\n\n")
		}
		if text != "" {
			t.emit(event.Reasoning{ItemID: id, Text: text})
		}
	case model.ItemWebSearchCall:
		t.emit(webSearchEvent(id, it))
	}
}

// collectCalls turns the response's call items into tool calls and
// announces each one.
func (t *turn) collectCalls(output []model.Item, snap *tools.Snapshot) []*tools.Call {
	var calls []*tools.Call
	for _, it := range output {
		if it.Type != model.ItemFunctionCall && it.Type != model.ItemCustomToolCall {
			continue
		}
		c := callOf(it)
		calls = append(calls, c)
		kind, title, name, server := event.KindOther, c.Name, c.Name, ""
		if h, ok := snap.Lookup(c.Name); ok {
			kind, title = h.Kind(), h.Title(c)
			name, server = eventToolNames(h, c)
		}
		t.emit(event.ToolCall{CallID: c.CallID, Tool: name, Server: server, Kind: kind, Title: title, Arguments: callArguments(c)})
	}
	return calls
}

// finished reports one tool result; the runner calls it from the tool's
// goroutine.
func (t *turn) finished(c *tools.Call, h tools.Handler, r tools.Result) {
	status := event.ToolCompleted
	switch {
	case r.Output.Rejected:
		status = event.ToolRejected
	case r.Output.Failed:
		status = event.ToolFailed
	}
	name, server := c.Name, ""
	if h != nil {
		name, server = eventToolNames(h, c)
	}
	t.emit(event.ToolResult{CallID: c.CallID, Tool: name, Server: server, Status: status, Output: r.Output.Text, DurationMs: r.Duration.Milliseconds()})
}

// eventToolNames is how events name the tool of call c: an MCP server's tool
// by its name there and the server's name, others as the model called
// them.
func eventToolNames(h tools.Handler, c *tools.Call) (name, server string) {
	if sp := h.Spec(); sp.Server != "" {
		return sp.ServerTool, sp.Server
	}
	return c.Name, ""
}

func callOf(it model.Item) *tools.Call {
	if it.Type == model.ItemCustomToolCall {
		return &tools.Call{CallID: it.CallID, Name: it.Name, Type: tools.Custom, Input: it.Input}
	}
	return &tools.Call{CallID: it.CallID, Name: it.Name, Type: tools.Function, Arguments: json.RawMessage(it.Arguments)}
}

// callArguments is the call's arguments as JSON for the toolCall event:
// the object the model sent, or the raw input of a freeform call as a
// string (so a malformed call still produces a valid event).
func callArguments(c *tools.Call) json.RawMessage {
	if c.Type == tools.Function && json.Valid(c.Arguments) {
		return c.Arguments
	}
	raw := c.Input
	if c.Type == tools.Function {
		raw = string(c.Arguments)
	}
	b, _ := json.Marshal(raw)
	return b
}

// outputItem is the history item answering call c.
func outputItem(c *tools.Call, out tools.Output) model.Item {
	typ := model.ItemFunctionCallOutput
	if c.Type == tools.Custom {
		typ = model.ItemCustomToolCallOutput
	}
	return model.Item{Type: typ, CallID: c.CallID, Output: out.Text, Images: out.Images}
}

// modelTools converts tool specs for the model. How a freeform tool
// reaches a model that cannot take it as such (as a function taking its
// input) is the model client's business: see model.Request.FunctionToolsOnly.
func modelTools(specs []tools.Spec) []model.Tool {
	out := make([]model.Tool, 0, len(specs))
	for _, sp := range specs {
		mt := model.Tool{Type: model.ToolFunction, Name: sp.Name, Description: sp.Description, Parameters: sp.Parameters}
		if sp.Type == tools.Custom {
			mt.Type, mt.Parameters = model.ToolCustom, nil
			if sp.Grammar != "" {
				mt.Grammar = &model.Grammar{Syntax: sp.GrammarSyntax, Definition: sp.Grammar}
			}
		}
		out = append(out, mt)
	}
	return out
}
