package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
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
}

// FinishFunc hears about each call once it finished or was aborted. It may
// be called from several goroutines, never for one call twice.
type FinishFunc func(call *Call, h Handler, r Result)

// AbortedOutput is what the model is told about a call the user
// interrupted.
const AbortedOutput = "aborted: the user interrupted the turn before this call finished"

// Run executes the calls of one model response and returns their results
// in call order. Read-only calls run in parallel; mutating calls run one at
// a time, in the order the model made them (the gate). When ctx is done Run
// returns at once: calls that had not finished are reported as aborted (a
// tool that ignores ctx is left to finish on its own; its result is
// dropped).
func (r *Registry) Run(ctx context.Context, env *Env, calls []*Call, finish FinishFunc) []Result {
	var (
		mu      sync.Mutex // guards results, done, sealed
		results = make([]Result, len(calls))
		done    = make([]bool, len(calls))
		sealed  bool
	)
	run := func(i int) {
		call := calls[i]
		h, _ := r.Lookup(call.Name)
		res := r.runOne(ctx, env, h, call)
		if res.Output.Failed && ctx.Err() != nil {
			// The failure is the interrupt's doing; say so plainly.
			res = Result{Output: Output{Text: AbortedOutput, Failed: true}, Duration: res.Duration, Aborted: true}
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
		if h, ok := r.Lookup(call.Name); ok && h.Mutating(call) {
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
			h, _ := r.Lookup(call.Name)
			results[i] = Result{Output: Output{Text: AbortedOutput, Failed: true}, Aborted: true}
			finish(call, h, results[i])
		}
	}
	return results
}

// runOne validates and runs one call, turning every failure into an output
// the model can act on.
func (r *Registry) runOne(ctx context.Context, env *Env, h Handler, call *Call) (res Result) {
	start := time.Now()
	defer func() {
		res.Duration = time.Since(start)
		if p := recover(); p != nil {
			slog.Error("tool panicked", "tool", call.Name, "panic", p, "stack", string(debug.Stack()))
			res.Output = Output{Text: fmt.Sprintf("tool %s failed with an internal error: %v", call.Name, p), Failed: true}
		}
	}()
	if h == nil {
		return Result{Output: Output{Text: fmt.Sprintf("unsupported call: %s (no such tool)", call.Name), Failed: true}}
	}
	if call.Type == Function {
		if err := checkArguments(call.Arguments); err != nil {
			return Result{Output: Output{Text: fmt.Sprintf("failed to parse function arguments: %v", err), Failed: true}}
		}
		sch, err := r.schemaFor(call.Name, h)
		if err != nil {
			// The tool's own schema is broken: a programming or MCP
			// server error, not the model's.
			slog.Error("tool schema does not compile", "tool", call.Name, "err", err)
			return Result{Output: Output{Text: fmt.Sprintf("tool %s cannot be called: %v", call.Name, err), Failed: true}}
		}
		if sch != nil {
			if err := validateArguments(sch, call.Arguments); err != nil {
				return Result{Output: Output{Text: fmt.Sprintf("%s: %v", call.Name, err), Failed: true}}
			}
		}
	}
	out, err := h.Handle(ctx, env, call)
	if err != nil {
		return Result{Output: Output{Text: err.Error(), Failed: true}}
	}
	return Result{Output: out}
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
