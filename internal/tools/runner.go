package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime/debug"
	"slices"
	"sync"
	"time"
)

// Result is the outcome of one call.
type Result struct {
	Output   Output
	Duration time.Duration
	// Aborted is set when the turn was interrupted before the call
	// finished; Output then says so in words the model understands.
	Aborted bool
	// Ran reports that the tool's Handle was called and did not refuse
	// (Output.Rejected): false for an unknown tool, invalid arguments, a
	// call a hook or the user refused.
	Ran bool
}

// FinishFunc hears about each call once it finished or was aborted. It may
// be called from several goroutines, never for one call twice.
type FinishFunc func(call *Call, h Handler, r Result)

// AbortedOutput is what the model is told about a call the user
// interrupted.
const AbortedOutput = "aborted: the user interrupted the turn before this call finished"

// abortedText is the output of a call of h that an interrupt cut short:
// AbortedOutput, or the tool's own words when it has some (a question
// withdrawn is not an action left half done).
func abortedText(h Handler) string {
	if a, ok := h.(interface{ AbortedOutput() string }); ok {
		return a.AbortedOutput()
	}
	return AbortedOutput
}

// Run executes calls against the registry's current snapshot; see
// Snapshot.Run.
func (r *Registry) Run(ctx context.Context, env *Env, calls []*Call, finish FinishFunc) []Result {
	return r.Snapshot().Run(ctx, env, calls, finish)
}

// Run executes the calls of one model response and returns their results
// in call order. Read-only calls run in parallel; mutating calls run one at
// a time, in the order the model made them (the gate). When ctx is done Run
// returns at once: calls that had not finished are reported as aborted (a
// tool that ignores ctx is left to finish on its own; its result is
// dropped).
func (s *Snapshot) Run(ctx context.Context, env *Env, calls []*Call, finish FinishFunc) []Result {
	var (
		mu      sync.Mutex // guards results, done, sealed
		results = make([]Result, len(calls))
		done    = make([]bool, len(calls))
		sealed  bool
	)
	run := func(i int) {
		call := calls[i]
		h, _ := s.Lookup(call.Name)
		res := s.runOne(ctx, env, call)
		if res.Output.Failed && ctx.Err() != nil {
			// The failure is the interrupt's doing; say so plainly.
			res = Result{Output: Output{Text: abortedText(h), Failed: true}, Duration: res.Duration, Aborted: true}
		}
		mu.Lock()
		defer mu.Unlock()
		if sealed {
			return
		}
		results[i], done[i] = res, true
		finish(call, h, res)
	}

	var wg sync.WaitGroup
	var gated []int
	for i, call := range calls {
		if h, ok := s.Lookup(call.Name); ok && h.Mutating(call) {
			gated = append(gated, i)
			continue
		}
		wg.Go(func() { run(i) })
	}
	if len(gated) > 0 {
		wg.Go(func() {
			for _, i := range gated {
				if ctx.Err() != nil {
					return
				}
				run(i)
			}
		})
	}
	all := make(chan struct{})
	go func() { wg.Wait(); close(all) }()
	select {
	case <-all:
	case <-ctx.Done():
	}

	mu.Lock()
	defer mu.Unlock()
	sealed = true
	for i, call := range calls {
		if !done[i] {
			h, _ := s.Lookup(call.Name)
			results[i] = Result{Output: Output{Text: abortedText(h), Failed: true}, Aborted: true}
			finish(call, h, results[i])
		}
	}
	return results
}

// Hook runs around every call, whatever kind of tool it is (built-in or
// from an MCP server): the one place where checks and approvals that
// concern all tools plug in. The registry's hooks (AddHook) run first,
// then the turn's (Env.Hooks). Either function may be nil.
type Hook struct {
	// Name identifies the hook in logs.
	Name string
	// Before runs once the arguments are valid and before the tool (h,
	// never nil); a refusal ends the call with Reason as a rejected
	// output for the model, and so does a panic.
	Before func(ctx context.Context, env *Env, h Handler, call *Call) Decision
	// After sees the result of every call that reached the registry
	// (unknown tools and invalid arguments included); h is nil for an
	// unknown tool.
	After func(ctx context.Context, env *Env, h Handler, call *Call, res Result)
}

// runOne is the path of every call: look the tool up, validate the
// arguments, ask the hooks, run the tool, tell the hooks. Every failure,
// a panic included, becomes an output the model can act on.
func (s *Snapshot) runOne(ctx context.Context, env *Env, call *Call) Result {
	start := time.Now()
	e := s.byName[call.Name]
	out, handled := s.call(ctx, env, e, call)
	res := Result{Output: out, Duration: time.Since(start), Ran: handled && !out.Rejected}
	var h Handler
	if e != nil {
		h = e.h
	}
	for _, hk := range s.hooksFor(env) {
		if hk.After == nil {
			continue
		}
		func() {
			defer recoverPanic(env, call, "hook "+hk.Name+" (after)", nil)
			hk.After(ctx, env, h, call, res)
		}()
	}
	return res
}

// hooksFor is the registry's hooks followed by the turn's (env.Hooks).
func (s *Snapshot) hooksFor(env *Env) []Hook {
	if env == nil || len(env.Hooks) == 0 {
		return s.hooks
	}
	return slices.Concat(s.hooks, env.Hooks)
}

// call validates and runs one call; handled reports that the tool's
// Handle was called.
func (s *Snapshot) call(ctx context.Context, env *Env, e *entry, call *Call) (out Output, handled bool) {
	defer recoverPanic(env, call, "tool "+call.Name, &out)
	if e == nil {
		return Output{Text: fmt.Sprintf("unsupported call: %s (no such tool)", call.Name), Failed: true}, false
	}
	if call.Type == Function {
		if err := checkArguments(call.Arguments); err != nil {
			return Output{Text: fmt.Sprintf("failed to parse function arguments: %v", err), Failed: true}, false
		}
		if e.schema != nil {
			if err := e.schema.Validate(call.Arguments); err != nil {
				return Output{Text: fmt.Sprintf("%s: %v", call.Name, err), Failed: true}, false
			}
		}
	}
	for _, hk := range s.hooksFor(env) {
		if out, ok := before(ctx, env, hk, e.h, call); !ok {
			return out, false
		}
	}
	handled = true
	o, err := e.h.Handle(ctx, env, call)
	if err != nil {
		return Output{Text: err.Error(), Failed: true}, true
	}
	return o, true
}

// before asks one hook whether call may go ahead. A hook that panics
// refuses: it may be the one deciding approvals.
func before(ctx context.Context, env *Env, hk Hook, h Handler, call *Call) (out Output, ok bool) {
	if hk.Before == nil {
		return Output{}, true
	}
	defer recoverPanic(env, call, "hook "+hk.Name+" (before)", &out)
	d := hk.Before(ctx, env, h, call)
	if d.Allowed {
		return Output{}, true
	}
	reason := d.Reason
	if reason == "" {
		reason = "refused: this call is not allowed"
	}
	return Output{Text: reason, Failed: true, Rejected: true}, false
}

// recoverPanic, deferred, turns a panic in what into a failed output (when
// out is not nil), logged through the turn's logger with its stack.
func recoverPanic(env *Env, call *Call, what string, out *Output) {
	p := recover()
	if p == nil {
		return
	}
	env.logger().Error("tool call panicked", "in", what, "tool", call.Name, "call", call.CallID, "panic", p, "stack", string(debug.Stack()))
	if out != nil {
		*out = Output{Text: fmt.Sprintf("%s failed with an internal error: %v", what, p), Failed: true}
	}
}

// checkArguments accepts a JSON object (or nothing, meaning {}).
func checkArguments(args json.RawMessage) error {
	if len(args) == 0 {
		return nil
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(args, &obj); err != nil {
		return fmt.Errorf("arguments must be a JSON object: %w", err)
	}
	if obj == nil {
		return fmt.Errorf("arguments must be a JSON object, got null")
	}
	return nil
}
