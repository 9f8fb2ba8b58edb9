package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed exec_command.md
var execCommandDescription string

// ExecCommand starts a command that may run on after the call (Codex's
// unified exec): in the sandbox unless approved otherwise, with a
// pseudo-terminal or pipes, as a session of the agent session's Terminals
// that write_stdin talks to.
type ExecCommand struct{}

var execCommandSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "cmd": {"type": "string", "description": "Shell command to execute."},
    "workdir": {"type": "string", "description": "The working directory, relative to the session's; it must be inside the workspace."},
    "shell": {"type": "string", "description": "Shell binary to launch (default bash)."},
    "login": {"type": "boolean", "description": "Run the shell with -l (default true)."},
    "tty": {"type": "boolean", "description": "Allocate a PTY for the command (default false: pipes)."},
    "yield_time_ms": {"type": "number", "description": "How long to wait for output before yielding (default 10000, from 250 to 30000)."},
    "max_output_tokens": {"type": "number", "description": "Maximum number of tokens of output to return (default 10000); the middle of longer output is left out."},
    "sandbox_permissions": {"type": "string", "enum": ["use_default", "require_escalated"], "description": "require_escalated asks the user to run the command outside the sandbox."},
    "justification": {"type": "string", "description": "With require_escalated: a short question for the user saying why the command needs to run outside the sandbox."},
    "prefix_rule": {"type": "array", "items": {"type": "string"}, "description": "A command prefix you suggest the user could allow (shown to the user only)."}
  },
  "required": ["cmd"],
  "additionalProperties": false
}`)

type execCommandArgs struct {
	Cmd                string   `json:"cmd"`
	Workdir            string   `json:"workdir"`
	Shell              string   `json:"shell"`
	Login              *bool    `json:"login"`
	TTY                bool     `json:"tty"`
	YieldTimeMs        float64  `json:"yield_time_ms"`
	MaxOutputTokens    float64  `json:"max_output_tokens"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
	PrefixRule         []string `json:"prefix_rule"`
}

func (ExecCommand) Spec() Spec {
	return Spec{Type: Function, Name: "exec_command", Description: execCommandDescription, Parameters: execCommandSchema}
}

func (ExecCommand) Kind() event.ToolKind { return event.KindExecute }
func (ExecCommand) Mutating(*Call) bool  { return true }

func (ExecCommand) Title(call *Call) string {
	var a execCommandArgs
	if json.Unmarshal(call.Arguments, &a) != nil || a.Cmd == "" {
		return "Run a command"
	}
	return "Run " + a.Cmd
}

// argv is the shell command line the call runs.
func (a *execCommandArgs) argv() []string {
	shell, flag := a.Shell, "-lc"
	if shell == "" {
		shell = "bash"
	}
	if a.Login != nil && !*a.Login {
		flag = "-c"
	}
	return []string{shell, flag, a.Cmd}
}

// justification is what the user reads with an escalation request: the
// model's words, and its suggested prefix rule as text (it never widens
// what an answer allows).
func (a *execCommandArgs) justification() string {
	if len(a.PrefixRule) == 0 {
		return a.Justification
	}
	return strings.TrimSpace(a.Justification + " (suggested prefix rule, not applied: " + strings.Join(a.PrefixRule, " ") + ")")
}

func (ExecCommand) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a execCommandArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("exec_command: invalid arguments: %w", err)
	}
	if strings.TrimSpace(a.Cmd) == "" {
		return Output{}, errors.New("exec_command: `cmd` is empty; give the shell command to run")
	}
	if env.Terminals == nil || env.Approver == nil {
		return Output{Text: "rejected: commands cannot run in this session", Failed: true, Rejected: true}, nil
	}
	dir, err := shellWorkdir(env, a.Workdir)
	if err != nil {
		return Output{}, err
	}
	argv := a.argv()
	req := ExecRequest{CallID: call.CallID, Command: argv, Cwd: dir,
		Escalated: a.SandboxPermissions == "require_escalated", Justification: a.justification()}
	d, err := env.Approver.Exec(ctx, req)
	if err != nil {
		return Output{}, err
	}
	if !d.Allowed {
		return Output{Text: d.Reason, Failed: true, Rejected: true}, nil
	}
	start := time.Now()
	t, err := env.Terminals.start(env, terminalSpec{callID: call.CallID, argv: argv, dir: dir, tty: a.TTY, sandboxed: d.Sandboxed})
	if err != nil {
		return Output{Text: "exec_command: " + err.Error(), Failed: true}, nil
	}
	yield := clampYield(a.YieldTimeMs, defaultExecYield, minYield, maxYield)
	return env.Terminals.collect(ctx, t, start, yield, maxOutputTokens(a.MaxOutputTokens), nil)
}

// maxOutputTokens is the budget a call asked for, or the default.
func maxOutputTokens(n float64) int {
	if !(n >= 1) {
		return defaultMaxOutputTokens
	}
	return int(min(n, 1<<30))
}
