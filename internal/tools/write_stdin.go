package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed write_stdin.md
var writeStdinDescription string

// WriteStdin types into a command session exec_command started, or polls
// it, and returns the output since the last call.
type WriteStdin struct{}

var writeStdinSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "session_id": {"type": "number", "description": "Identifier of the running command session."},
    "chars": {"type": "string", "description": "Bytes to write to stdin (may be empty to poll)."},
    "yield_time_ms": {"type": "number", "description": "How long to wait for output before yielding (default 250 after a write, at most 30000; an empty poll waits from 5000 to 300000)."},
    "max_output_tokens": {"type": "number", "description": "Maximum number of tokens of output to return (default 10000); the middle of longer output is left out."}
  },
  "required": ["session_id"],
  "additionalProperties": false
}`)

type writeStdinArgs struct {
	SessionID       float64 `json:"session_id"`
	Chars           string  `json:"chars"`
	YieldTimeMs     float64 `json:"yield_time_ms"`
	MaxOutputTokens float64 `json:"max_output_tokens"`
}

// InputApprover is an Approver that also decides what a tool types into
// a command that runs outside the sandbox. Without it, such a command
// takes no input.
type InputApprover interface {
	Input(ctx context.Context, req InputRequest) (Decision, error)
}

// InputRequest is input for a command session that runs outside the
// sandbox.
type InputRequest struct {
	CallID string
	// SessionID is the command session's id; Command and Cwd what it
	// runs.
	SessionID int
	Command   []string
	Cwd       string
	// Chars are the exact characters to type.
	Chars string
}

func (WriteStdin) Spec() Spec {
	return Spec{Type: Function, Name: "write_stdin", Description: writeStdinDescription, Parameters: writeStdinSchema}
}

func (WriteStdin) Kind() event.ToolKind { return event.KindExecute }

// Mutating: typing changes what the command does; a poll only reads.
func (WriteStdin) Mutating(call *Call) bool {
	var a writeStdinArgs
	return json.Unmarshal(call.Arguments, &a) != nil || a.Chars != ""
}

func (WriteStdin) Title(call *Call) string {
	var a writeStdinArgs
	if json.Unmarshal(call.Arguments, &a) != nil {
		return "Write to a command"
	}
	id := strconv.FormatFloat(a.SessionID, 'f', -1, 64)
	if a.Chars == "" {
		return "Wait for command " + id
	}
	return "Write " + strconv.QuoteToGraphic(a.Chars) + " to command " + id
}

func (WriteStdin) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a writeStdinArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("write_stdin: invalid arguments: %w", err)
	}
	if env.Terminals == nil {
		return Output{Text: "rejected: commands cannot run in this session", Failed: true, Rejected: true}, nil
	}
	start := time.Now()
	id := int(a.SessionID)
	t, ok := env.Terminals.get(id)
	if !ok || float64(id) != a.SessionID {
		return Output{Text: fmt.Sprintf("write_stdin: no command session %v: it exited and its output was read, or it never existed; start a command with exec_command", a.SessionID), Failed: true}, nil
	}
	maxTokens := maxOutputTokens(a.MaxOutputTokens)
	if a.Chars == "" || t.ended() {
		// A poll; or input for a command that ended, which nothing
		// reads any more: nobody is asked, the answer says it ended.
		return env.Terminals.collect(ctx, t, start, clampYield(a.YieldTimeMs, minPollYield, minPollYield, maxPollYield), maxTokens, nil)
	}
	if !t.sandboxed {
		out, ok, err := approveInput(ctx, env, call, t, a.Chars)
		if err != nil || !ok {
			return out, err
		}
	}
	in := t.send(a.Chars)
	return env.Terminals.collect(ctx, t, start, clampYield(a.YieldTimeMs, defaultWriteYield, minYield, maxYield), maxTokens, in)
}

// approveInput asks, under the session's policy, whether chars may be
// typed into t, which runs outside the sandbox: each time, for these
// exact characters.
func approveInput(ctx context.Context, env *Env, call *Call, t *terminal, chars string) (Output, bool, error) {
	ia, ok := env.Approver.(InputApprover)
	if !ok {
		return Output{Text: "rejected: this command runs outside the sandbox, and nobody can approve input for it here", Failed: true, Rejected: true}, false, nil
	}
	d, err := ia.Input(ctx, InputRequest{CallID: call.CallID, SessionID: t.id, Command: t.command, Cwd: t.cwd, Chars: chars})
	if err != nil {
		return Output{}, false, err
	}
	if !d.Allowed {
		return Output{Text: d.Reason, Failed: true, Rejected: true}, false, nil
	}
	return Output{}, true, nil
}
