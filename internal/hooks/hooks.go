// Package hooks runs the user's hook commands around the agent's tool
// calls (the `[[hooks]]` of the config file): a before_tool_use hook may
// deny a call, an after_tool_use hook may stop the turn. It implements
// agent.ToolHooks.
//
// A hook is a command (an argv, no shell) that gets one JSON object on
// its standard input:
//
//	{"event": "before_tool_use", "sessionId": "s-…", "turnId": "t-…", "cwd": "/project",
//	 "tool": {"name": "shell", "kind": "execute", "callId": "call_…", "arguments": {"command": ["ls"]}}}
//
// arguments is the JSON object the model sent, or the raw input of a
// freeform tool (apply_patch) as a JSON string. An after_tool_use hook
// also gets
//
//	"result": {"ran": true, "success": true, "output": "…", "outputTruncated": false}
//
// where ran is false when the call did not run (denied by a hook, refused
// by the user or by policy, an unknown tool, invalid arguments), success
// is false when it did not run or failed, and output is what the model
// gets, its first MaxOutputBytes only (outputTruncated says so).
//
// Exit status 2 is the hook's verdict: a before_tool_use hook denies the
// call, with its standard error (trimmed, cut at MaxReasonBytes) as the
// reason the model reads; an after_tool_use hook stops the turn, which
// fails with that reason. Any other failure (another status, a hook that
// cannot start, a timeout) is returned as an error, which the agent logs;
// it blocks nothing. Standard output is ignored.
//
// Hooks are the user's own commands, like the user's shell: they run
// without the sandbox, in the session's directory, with agent-ls's whole
// environment (the shell environment policy is for the model's commands,
// not for these), and nothing of the call's approval or sandbox settings
// reaches them. A hook that outlives its timeout is killed with its whole
// process group.
package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Event says when a hook runs.
type Event string

// The events.
const (
	// BeforeToolUse hooks run before a call, before the user is asked to
	// approve it.
	BeforeToolUse Event = "before_tool_use"
	// AfterToolUse hooks run once a call has its result.
	AfterToolUse Event = "after_tool_use"
)

// Events lists the valid events.
var Events = []Event{BeforeToolUse, AfterToolUse}

// ParseEvent returns the event named s.
func ParseEvent(s string) (Event, error) {
	for _, e := range Events {
		if string(e) == s {
			return e, nil
		}
	}
	return "", fmt.Errorf("unknown hook event %q (use before_tool_use or after_tool_use)", s)
}

// Limits of what goes to and comes from a hook.
const (
	// DefaultTimeout is how long a hook may run when Timeout is zero.
	DefaultTimeout = 10 * time.Second
	// MaxOutputBytes bounds the output of a call sent to an after hook.
	MaxOutputBytes = 64 << 10
	// MaxReasonBytes bounds the reason taken from a hook's standard error.
	MaxReasonBytes = 4 << 10
	// VerdictExitCode is the exit status with which a hook denies a call
	// or stops the turn.
	VerdictExitCode = 2
)

// Hook is one hook command.
type Hook struct {
	Event Event
	// Tools are the names of the tools the hook is for, each a glob
	// (path.Match: `*`, `?`, `[...]`, so "mcp_server__*" names every
	// tool of an MCP server) matched against the whole name, with case;
	// empty means every tool.
	Tools []string
	// Command is the program and its arguments, run without a shell.
	// The program is an absolute path or a name looked up on agent-ls's
	// PATH; a relative path is refused, since it would be taken against
	// the session's directory (the project's files).
	Command []string
	// Timeout bounds one run; zero means DefaultTimeout.
	Timeout time.Duration
}

// name is how messages and logs name the hook.
func (h *Hook) name() string { return h.Command[0] }

func (h *Hook) timeout() time.Duration {
	if h.Timeout == 0 {
		return DefaultTimeout
	}
	return h.Timeout
}

// matches reports whether the hook is for the tool named tool.
func (h *Hook) matches(tool string) bool {
	if len(h.Tools) == 0 {
		return true
	}
	for _, pat := range h.Tools {
		if ok, _ := path.Match(pat, tool); ok {
			return true
		}
	}
	return false
}

// Runner runs the configured hooks; it implements agent.ToolHooks and is
// safe for concurrent use.
type Runner struct {
	hooks []Hook
}

var _ agent.ToolHooks = (*Runner)(nil)

// New checks hooks and returns the Runner that runs them, in their order.
// Every problem is reported, each naming the hook by its position (from
// 1) in hooks.
func New(hooks []Hook) (*Runner, error) {
	var errs []error
	for i, h := range hooks {
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("hook %d: "+format, append([]any{i + 1}, args...)...))
		}
		if _, err := ParseEvent(string(h.Event)); err != nil {
			bad("%v", err)
		}
		switch {
		case len(h.Command) == 0 || h.Command[0] == "":
			bad("command is empty; give the program and its arguments")
		case !filepath.IsAbs(h.Command[0]) && strings.ContainsAny(h.Command[0], `/\`):
			// It would be taken against the session's directory: a file
			// of whatever project is open would run as the hook.
			bad("command %q is a relative path; give an absolute path or a program name to look up on PATH", h.Command[0])
		}
		for _, pat := range h.Tools {
			if _, err := path.Match(pat, ""); err != nil || pat == "" {
				bad("bad tool pattern %q", pat)
			}
		}
		if h.Timeout < 0 {
			bad("negative timeout %s", h.Timeout)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return &Runner{hooks: append([]Hook(nil), hooks...)}, nil
}

// BeforeTool runs the before_tool_use hooks for use's tool, in order,
// until one denies it.
func (r *Runner) BeforeTool(ctx context.Context, use agent.ToolUse) (deny string, err error) {
	if !r.any(BeforeToolUse, use.Name) {
		return "", nil
	}
	input, err := marshalInput(BeforeToolUse, use, nil)
	if err != nil {
		return "", err
	}
	return r.runAll(ctx, BeforeToolUse, use, input, func(h *Hook, stderr string) string {
		if stderr == "" {
			return fmt.Sprintf("denied by the before_tool_use hook %s", h.name())
		}
		return stderr
	})
}

// AfterTool runs the after_tool_use hooks for use's tool, in order, until
// one stops the turn.
func (r *Runner) AfterTool(ctx context.Context, use agent.ToolUse, outcome agent.ToolOutcome) (abort string, err error) {
	if !r.any(AfterToolUse, use.Name) {
		return "", nil
	}
	input, err := marshalInput(AfterToolUse, use, &outcome)
	if err != nil {
		return "", err
	}
	return r.runAll(ctx, AfterToolUse, use, input, func(h *Hook, stderr string) string {
		if stderr == "" {
			return fmt.Sprintf("the after_tool_use hook %s stopped the turn", h.name())
		}
		return fmt.Sprintf("the after_tool_use hook %s stopped the turn: %s", h.name(), stderr)
	})
}

// any reports whether a hook of event is for the tool named tool; a nil
// Runner has none.
func (r *Runner) any(event Event, tool string) bool {
	if r == nil {
		return false
	}
	for i := range r.hooks {
		if r.hooks[i].Event == event && r.hooks[i].matches(tool) {
			return true
		}
	}
	return false
}

// runAll runs the hooks of event for use's tool until one gives its
// verdict (exit status 2), which verdict turns into the text returned;
// the failures of the others are joined into err.
func (r *Runner) runAll(ctx context.Context, event Event, use agent.ToolUse, input []byte, verdict func(*Hook, string) string) (string, error) {
	var errs []error
	for i := range r.hooks {
		h := &r.hooks[i]
		if h.Event != event || !h.matches(use.Name) {
			continue
		}
		stderr, err := run(ctx, h, use.Cwd, input)
		if errors.Is(err, errVerdict) {
			return verdict(h, stderr), errors.Join(errs...)
		}
		if err != nil {
			errs = append(errs, err)
		}
		if ctx.Err() != nil {
			break
		}
	}
	return "", errors.Join(errs...)
}

// input is the JSON object a hook reads on its standard input.
type input struct {
	Event     Event   `json:"event"`
	SessionID string  `json:"sessionId"`
	TurnID    string  `json:"turnId"`
	Cwd       string  `json:"cwd"`
	Tool      tool    `json:"tool"`
	Result    *result `json:"result,omitempty"`
}

type tool struct {
	Name      string          `json:"name"`
	Kind      string          `json:"kind"`
	CallID    string          `json:"callId"`
	Arguments json.RawMessage `json:"arguments"`
}

type result struct {
	Ran             bool   `json:"ran"`
	Success         bool   `json:"success"`
	Output          string `json:"output"`
	OutputTruncated bool   `json:"outputTruncated"`
}

func marshalInput(event Event, use agent.ToolUse, outcome *agent.ToolOutcome) ([]byte, error) {
	in := input{Event: event, SessionID: use.SessionID, TurnID: use.TurnID, Cwd: use.Cwd,
		Tool: tool{Name: use.Name, Kind: string(use.Kind), CallID: use.CallID, Arguments: use.Arguments}}
	if len(in.Tool.Arguments) == 0 || !json.Valid(in.Tool.Arguments) {
		raw, _ := json.Marshal(string(use.Arguments))
		in.Tool.Arguments = raw
	}
	if outcome != nil {
		out := textcut.Prefix(outcome.Output, MaxOutputBytes)
		in.Result = &result{Ran: outcome.Ran, Success: outcome.Success, Output: out, OutputTruncated: len(out) < len(outcome.Output)}
	}
	b, err := json.Marshal(in)
	if err != nil {
		return nil, fmt.Errorf("hook input: %w", err)
	}
	return b, nil
}

// trimReason is a hook's standard error as a reason: valid UTF-8,
// trimmed, cut at MaxReasonBytes.
func trimReason(stderr []byte) string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(stderr), "\uFFFD"))
	return textcut.Cut(s, MaxReasonBytes)
}
