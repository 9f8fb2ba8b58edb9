package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

//go:embed shell.md
var shellDescription string

// Shell runs a command, in the sandbox unless approved otherwise, and
// streams its output to the user while it runs.
type Shell struct{}

// Defaults of the shell tool.
const (
	DefaultShellTimeout = 10 * time.Second
	// MaxShellTimeout bounds the timeout_ms the model may ask for: a
	// larger value is taken as this much. Without a bound, a value beyond
	// what a time.Duration holds (about 9.2e15 ms) overflowed into a
	// negative timeout that killed the command at once.
	MaxShellTimeout = time.Hour
	// shellCaptureBytes bounds what is kept of a command's output: the
	// first and the last this many bytes.
	shellCaptureBytes = 1 << 20
	// shellPipeDrain is how long Wait waits for output after the command
	// exited or was killed. A sandboxed command's helper ends everything
	// the command started when it exits, so its pipes close with it; the
	// bound is for an unsandboxed command's grandchild holding the pipe.
	shellPipeDrain = 2 * time.Second
	// exitTimeout is the exit code reported for a command that timed out.
	exitTimeout = 124
)

var shellSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "command": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "The command and its arguments, as passed to execvp()."},
    "workdir": {"type": "string", "description": "The working directory, relative to the session's; it must be inside the workspace."},
    "timeout_ms": {"type": "number", "minimum": 1, "description": "Kill the command after this many milliseconds (default 10000, at most 3600000: one hour)."},
    "sandbox_permissions": {"type": "string", "enum": ["use_default", "require_escalated"], "description": "require_escalated asks the user to run the command outside the sandbox."},
    "justification": {"type": "string", "description": "With require_escalated: a short question for the user saying why the command needs to run outside the sandbox."}
  },
  "required": ["command"],
  "additionalProperties": false
}`)

type shellArgs struct {
	Command            []string `json:"command"`
	Workdir            string   `json:"workdir"`
	TimeoutMs          float64  `json:"timeout_ms"`
	SandboxPermissions string   `json:"sandbox_permissions"`
	Justification      string   `json:"justification"`
}

func (Shell) Spec() Spec {
	return Spec{Type: Function, Name: "shell", Description: shellDescription, Parameters: shellSchema}
}

func (Shell) Kind() event.ToolKind { return event.KindExecute }
func (Shell) Mutating(*Call) bool  { return true }

func (Shell) Title(call *Call) string {
	var a shellArgs
	if json.Unmarshal(call.Arguments, &a) != nil || len(a.Command) == 0 {
		return "Run a command"
	}
	if len(a.Command) == 3 && (a.Command[1] == "-lc" || a.Command[1] == "-c") {
		return "Run " + a.Command[2]
	}
	return "Run " + strings.Join(a.Command, " ")
}

func (Shell) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a shellArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("shell: invalid arguments: %w", err)
	}
	if len(a.Command) == 0 || a.Command[0] == "" {
		return Output{}, errors.New("shell: `command` is empty; give the program and its arguments, e.g. [\"bash\", \"-lc\", \"ls\"]")
	}
	dir, err := shellWorkdir(env, a.Workdir)
	if err != nil {
		return Output{}, err
	}
	timeout := shellTimeout(a.TimeoutMs)
	if env.Approver == nil {
		return Output{Text: "rejected: commands cannot run in this session", Failed: true, Rejected: true}, nil
	}
	req := ExecRequest{CallID: call.CallID, Command: a.Command, Cwd: dir,
		Escalated: a.SandboxPermissions == "require_escalated", Justification: a.Justification}
	d, err := env.Approver.Exec(ctx, req)
	if err != nil {
		return Output{}, err
	}
	if !d.Allowed {
		return Output{Text: d.Reason, Failed: true, Rejected: true}, nil
	}
	res, err := runCommand(ctx, env, call.CallID, a.Command, dir, timeout, d.Sandboxed)
	if err != nil {
		return Output{}, err
	}
	if d.Sandboxed && sandbox.LikelyDenied(res.exitCode, res.stdout.bytes(), res.stderr.bytes(), true) {
		retry, err := env.Approver.RetryUnsandboxed(ctx, req, res.combined.String())
		if err != nil {
			return Output{}, err
		}
		if !retry.Allowed {
			out := Output{Text: res.format(), Failed: true}
			if retry.Reason != "" {
				out.Text += "\n" + retry.Reason
			}
			return out, nil
		}
		if res, err = runCommand(ctx, env, call.CallID, a.Command, dir, timeout, false); err != nil {
			return Output{}, err
		}
	}
	return Output{Text: res.format(), Failed: res.exitCode != 0}, nil
}

// shellTimeout is the timeout of a call that asked for ms milliseconds:
// DefaultShellTimeout when it asked for none (or for nothing positive),
// at most MaxShellTimeout. The comparison is made in milliseconds, before
// the conversion to a Duration can overflow.
func shellTimeout(ms float64) time.Duration {
	switch {
	case !(ms > 0):
		return DefaultShellTimeout
	case ms >= float64(MaxShellTimeout/time.Millisecond):
		return MaxShellTimeout
	}
	return time.Duration(ms * float64(time.Millisecond))
}

// shellWorkdir resolves the workdir against the session cwd and keeps it
// inside the project. It only chooses where the command runs: what it may
// write is the session's boundary, whatever the workdir.
func shellWorkdir(env *Env, workdir string) (string, error) {
	dir := env.Cwd
	if workdir != "" {
		dir = workdir
		if !filepath.IsAbs(dir) {
			dir = filepath.Join(env.Cwd, dir)
		}
	}
	dir = filepath.Clean(dir)
	if st, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("shell: workdir %s: %w", dir, err)
	} else if !st.IsDir() {
		return "", fmt.Errorf("shell: workdir %s is not a directory", dir)
	}
	if !env.Boundary.Contains(dir) {
		return "", fmt.Errorf("shell: workdir %s is outside the workspace %s; use a folder inside it", dir, env.Boundary.Root())
	}
	return dir, nil
}

// commandResult is what one run produced.
type commandResult struct {
	exitCode int
	wall     time.Duration
	timedOut time.Duration // the timeout, when it struck
	notFound string        // set when the program could not be started
	stdout   *capture
	stderr   *capture
	combined *capture
}

// runCommand runs argv and streams its output as execOutput events. A
// timeout or an interrupt kills the whole process group; an interrupt
// returns ctx's error.
func runCommand(ctx context.Context, env *Env, callID string, argv []string, dir string, timeout time.Duration, sandboxed bool) (*commandResult, error) {
	helper, err := helperPath(env)
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	policy := commandPolicy(env, dir, sandboxed)
	if env.Exec.Proxy != nil && sandboxed {
		policy.Proxy = env.Exec.Proxy(callID, "", argv)
	}
	res := &commandResult{stdout: newCapture(), stderr: newCapture(), combined: newCapture()}
	cmd, err := sandbox.Command(runCtx, policy, argv, env.Exec.Env.Environ(os.Environ()), helper)
	if errors.Is(err, sandbox.ErrNotFound) || errors.Is(err, exec.ErrNotFound) {
		res.exitCode, res.notFound = sandbox.ExitNotFound, argv[0]
		return res, nil
	}
	if err != nil {
		return nil, fmt.Errorf("shell: %w", err)
	}
	cmd.Dir = dir
	cmd.WaitDelay = shellPipeDrain
	var mu sync.Mutex // orders the combined capture and the events
	live := newLiveOutput(env.Emit, callID)
	defer live.close()
	stream := func(name string, own *capture) *streamWriter {
		return &streamWriter{write: func(p []byte) {
			mu.Lock()
			defer mu.Unlock()
			own.Write(p)
			res.combined.Write(p)
			live.write(name, p)
		}}
	}
	cmd.Stdout = stream("stdout", res.stdout)
	cmd.Stderr = stream("stderr", res.stderr)
	start := time.Now()
	if err := cmd.Start(); err != nil {
		if errors.Is(err, exec.ErrNotFound) || errors.Is(err, os.ErrNotExist) {
			res.exitCode, res.notFound = sandbox.ExitNotFound, argv[0]
			return res, nil
		}
		return nil, fmt.Errorf("shell: start %s: %w", argv[0], err)
	}
	err = cmd.Wait()
	res.wall = time.Since(start)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if runCtx.Err() != nil {
		res.timedOut = timeout
		res.exitCode = exitTimeout
		return res, nil
	}
	res.exitCode = exitCodeOf(cmd.ProcessState, err)
	return res, nil
}

// helperPath is the agent-ls binary that runs the sandbox helper.
func helperPath(env *Env) (string, error) {
	if env.Exec.HelperPath != "" {
		return env.Exec.HelperPath, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find the sandbox helper: %w", err)
	}
	return exe, nil
}

// commandPolicy is the sandbox policy of a command the session runs in
// dir: its boundary and exec settings, or no sandbox when !sandboxed.
func commandPolicy(env *Env, dir string, sandboxed bool) sandbox.Policy {
	policy := sandbox.PolicyFor(env.Boundary, dir, env.Exec.Network)
	policy.ExcludeTmpdirEnvVar, policy.ExcludeSlashTmp = env.Exec.ExcludeTmpdirEnvVar, env.Exec.ExcludeSlashTmp
	policy.CacheRoot = env.Exec.CacheRoot
	policy.Sockets, policy.AllowProjectSockets = env.Exec.Sockets, env.Exec.AllowProjectSockets
	if !sandboxed {
		policy.Mode = sandbox.DangerFullAccess
	}
	return policy
}

func exitCodeOf(ps *os.ProcessState, err error) int {
	if ps == nil {
		if err != nil {
			return -1
		}
		return 0
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// format renders the result for the model: exit code, wall time and the
// output, cut in the middle when long, with its exact size.
func (r *commandResult) format() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Exit code: %d\nWall time: %.1f seconds\n", r.exitCode, r.wall.Seconds())
	if r.timedOut > 0 {
		fmt.Fprintf(&b, "command timed out after %d milliseconds\n", r.timedOut.Milliseconds())
	}
	if r.notFound != "" {
		fmt.Fprintf(&b, "Output:\ncommand not found: %s", r.notFound)
		return b.String()
	}
	sum := summarize(r.combined, shellHeadTailLines, shellMaxOutputBytes)
	if sum.cut {
		fmt.Fprintf(&b, "Total output lines: %d\nTotal output bytes: %d\n", sum.lines, sum.bytes)
	}
	b.WriteString("Output:\n")
	b.WriteString(sum.text)
	return strings.TrimRight(b.String(), "\n")
}

// What the model gets of a long output: the first and last lines.
const (
	shellHeadTailLines  = 128
	shellMaxOutputBytes = 10 << 10
)
