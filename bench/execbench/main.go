//go:build linux

// Command execbench times a command's round trip through the real tools
// and sandbox: the classic shell tool next to exec_command (start, its
// yield, an empty write_stdin poll), for the same commands, printing
// medians; and the yield error, how much longer than the yield_time_ms
// it asked for an exec_command call took to return. The agent-ls binary
// given with -bin is the sandbox helper, as in a session.
//
//	go run ./bench/execbench -bin bin/agent-ls [-n 30]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/sandbox"
	"github.com/agent-ls/agent-ls/internal/tools"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// The commands timed, and the yield asked of exec_command for the slow
// one (the sleep outlasts it, so the call yields and a poll follows).
const (
	quick     = "echo hi"
	slow      = "sleep 0.3; echo done"
	slowYield = 250 * time.Millisecond
)

func main() {
	bin := flag.String("bin", "bin/agent-ls", "the agent-ls binary (the sandbox helper)")
	runs := flag.Int("n", 30, "runs per variant")
	flag.Parse()
	helper, err := filepath.Abs(*bin)
	if err != nil {
		fatal(err)
	}
	dir, err := os.MkdirTemp("", "execbench-")
	if err != nil {
		fatal(err)
	}
	defer os.RemoveAll(dir)
	if dir, err = filepath.EvalSymlinks(dir); err != nil {
		fatal(err)
	}
	env, err := newEnv(dir, helper)
	if err != nil {
		fatal(err)
	}
	defer env.Terminals.Close()
	ns := "without namespaces"
	if sandbox.Probe().Namespaces {
		ns = "with namespaces"
	}
	fmt.Printf("median of %d runs each, in the sandbox (workspace-write, %s), bash -c without a login profile\n\n", *runs, ns)
	b := &bench{env: env}
	// One untimed round of each, to warm the caches.
	b.shell(quick)
	b.execRoundTrip(quick, 0)
	b.execRoundTrip(slow, slowYield)
	report(b, *runs)
}

// report times each variant runs times and prints the medians.
func report(b *bench, runs int) {
	var shellQuick, shellSlow, execQuick, start, poll, total, yieldErr []time.Duration
	for range runs {
		shellQuick = append(shellQuick, b.shell(quick))
		shellSlow = append(shellSlow, b.shell(slow))
		q := b.execRoundTrip(quick, 0)
		execQuick = append(execQuick, q.total)
		s := b.execRoundTrip(slow, slowYield)
		start, poll, total = append(start, s.start), append(poll, s.poll), append(total, s.total)
		yieldErr = append(yieldErr, s.start-slowYield)
	}
	row := func(name string, d []time.Duration) {
		fmt.Printf("  %-62s %8.1f ms\n", name, stats.MS(stats.Median(d)))
	}
	fmt.Printf("%q\n", quick)
	row("shell", shellQuick)
	row("exec_command (returns at the exit)", execQuick)
	fmt.Printf("%q\n", slow)
	row("shell", shellSlow)
	row(fmt.Sprintf("exec_command, yield_time_ms %d (returns a session id)", slowYield.Milliseconds()), start)
	row("write_stdin, empty poll (returns at the exit)", poll)
	row("exec_command round trip: start + poll", total)
	fmt.Printf("yield error of exec_command (its call's time minus yield_time_ms %d): median %.1f ms, min %.1f, max %.1f\n",
		slowYield.Milliseconds(), stats.MS(stats.Median(yieldErr)), stats.MS(slices.Min(yieldErr)), stats.MS(slices.Max(yieldErr)))
}

// bench calls the tools as a turn does.
type bench struct {
	env   *tools.Env
	calls int
}

// roundTrip is one exec_command round trip: the call, and the poll that
// followed when it yielded (zero when the command ended within it).
type roundTrip struct{ start, poll, total time.Duration }

func (b *bench) call(h tools.Handler, args map[string]any) (tools.Output, time.Duration) {
	raw, err := json.Marshal(args)
	if err != nil {
		fatal(err)
	}
	b.calls++
	c := &tools.Call{CallID: fmt.Sprintf("c%d", b.calls), Name: h.Spec().Name, Type: tools.Function, Arguments: raw}
	t0 := time.Now()
	out, err := h.Handle(context.Background(), b.env, c)
	d := time.Since(t0)
	if err != nil {
		fatal(fmt.Errorf("%s: %w", c.Name, err))
	}
	return out, d
}

// shell runs script with the classic shell tool.
func (b *bench) shell(script string) time.Duration {
	out, d := b.call(tools.Shell{}, map[string]any{"command": []string{"bash", "-c", script}})
	if out.Failed || !strings.Contains(out.Text, script[strings.LastIndex(script, " ")+1:]) {
		fatal(fmt.Errorf("shell %q: %s", script, out.Text))
	}
	return d
}

// execRoundTrip starts script with exec_command (yield 0: the default)
// and, when it yields, polls it with an empty write_stdin until it ends.
func (b *bench) execRoundTrip(script string, yield time.Duration) roundTrip {
	args := map[string]any{"cmd": script, "login": false}
	if yield > 0 {
		args["yield_time_ms"] = yield.Milliseconds()
	}
	out, start := b.call(tools.ExecCommand{}, args)
	rt := roundTrip{start: start, total: start}
	var id int
	if _, err := fmt.Sscanf(sessionLine(out.Text), "Process running with session ID %d", &id); err == nil {
		var poll time.Duration
		out, poll = b.call(tools.WriteStdin{}, map[string]any{"session_id": id, "chars": ""})
		rt.poll, rt.total = poll, start+poll
	}
	if !strings.Contains(out.Text, "Process exited with code 0") {
		fatal(fmt.Errorf("exec_command %q: %s", script, out.Text))
	}
	return rt
}

// sessionLine is the output's line that names a running session, if any.
func sessionLine(text string) string {
	for line := range strings.SplitSeq(text, "\n") {
		if strings.HasPrefix(line, "Process running with session ID ") {
			return line
		}
	}
	return ""
}

// newEnv is a session's tool environment rooted at dir: the sandbox
// (workspace-write) through helper, every command allowed in it.
func newEnv(dir, helper string) (*tools.Env, error) {
	boundary, err := policy.NewBoundary(policy.WorkspaceWrite, dir, nil, policy.TempRoots(os.Getenv("TMPDIR")))
	if err != nil {
		return nil, err
	}
	return &tools.Env{Cwd: dir, Emit: func(event.Payload) {}, Files: workspace.NewStore(), Boundary: boundary,
		Approver: sandboxed{}, Exec: tools.ExecConfig{HelperPath: helper}, Terminals: tools.NewTerminals(nil)}, nil
}

// sandboxed allows every command in the sandbox and nothing else.
type sandboxed struct{}

func (sandboxed) Exec(context.Context, tools.ExecRequest) (tools.ExecDecision, error) {
	return tools.ExecDecision{Decision: tools.Decision{Allowed: true}, Sandboxed: true}, nil
}

func (sandboxed) RetryUnsandboxed(context.Context, tools.ExecRequest, string) (tools.Decision, error) {
	return tools.Decision{Reason: "not in this benchmark"}, nil
}

func (sandboxed) Patch(context.Context, tools.PatchRequest) (tools.Decision, error) {
	return tools.Decision{Reason: "not in this benchmark"}, nil
}

func (sandboxed) Tool(context.Context, tools.ToolRequest) (tools.Decision, error) {
	return tools.Decision{Reason: "not in this benchmark"}, nil
}

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "execbench:", err)
	os.Exit(1)
}
