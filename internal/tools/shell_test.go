package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/proctest"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

// fakeApprover decides by fixed answers and records what it was asked.
type fakeApprover struct {
	mu      sync.Mutex
	allow   bool
	sandbox bool
	retry   bool
	reason  string
	execs   []ExecRequest
	retries []string
}

func (f *fakeApprover) Exec(_ context.Context, req ExecRequest) (ExecDecision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.execs = append(f.execs, req)
	return ExecDecision{Decision: Decision{Allowed: f.allow, Reason: f.reason}, Sandboxed: f.sandbox}, nil
}

func (f *fakeApprover) RetryUnsandboxed(_ context.Context, _ ExecRequest, output string) (Decision, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.retries = append(f.retries, output)
	return Decision{Allowed: f.retry}, nil
}

func (f *fakeApprover) Patch(context.Context, PatchRequest) (Decision, error) {
	return Decision{}, nil
}

func (f *fakeApprover) Tool(context.Context, ToolRequest) (Decision, error) {
	return Decision{}, nil
}

type eventLog struct {
	mu      sync.Mutex
	events  []event.Payload
	changed chan struct{} // closed and replaced on every event
}

func (l *eventLog) emit(p event.Payload) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, p)
	if l.changed != nil {
		close(l.changed)
	}
	l.changed = make(chan struct{})
}

// waitOutput waits until the output streamed so far holds s; false when
// stop is closed first.
func (l *eventLog) waitOutput(s string, stop <-chan struct{}) bool {
	for {
		l.mu.Lock()
		if l.changed == nil {
			l.changed = make(chan struct{})
		}
		changed := l.changed
		l.mu.Unlock()
		if strings.Contains(l.output(), s) {
			return true
		}
		select {
		case <-changed:
		case <-stop:
			return false
		}
	}
}

func (l *eventLog) output() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for _, p := range l.events {
		if o, ok := p.(event.ExecOutput); ok {
			b.WriteString(o.Chunk)
		}
	}
	return b.String()
}

func shellEnv(t *testing.T, ap *fakeApprover, mode policy.SandboxMode) (*Env, *eventLog) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	log := &eventLog{}
	dir := t.TempDir()
	return &Env{Cwd: dir, Emit: log.emit, Boundary: testBoundary(t, mode, dir), Approver: ap, Exec: ExecConfig{HelperPath: exe}}, log
}

func runShell(t *testing.T, ctx context.Context, env *Env, args map[string]any) (Output, error) {
	t.Helper()
	raw, _ := json.Marshal(args)
	return Shell{}.Handle(ctx, env, &Call{CallID: "c1", Name: "shell", Type: Function, Arguments: raw})
}

func allowDirect() *fakeApprover { return &fakeApprover{allow: true} }

func TestShellRunsAndStreams(t *testing.T) {
	env, log := shellEnv(t, allowDirect(), sandbox.DangerFullAccess)
	out, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"bash", "-c", "echo hello; echo oops >&2; exit 3"}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Failed || !strings.HasPrefix(out.Text, "Exit code: 3\nWall time: ") || !strings.Contains(out.Text, "hello") || !strings.Contains(out.Text, "oops") {
		t.Errorf("output %q", out.Text)
	}
	if got := log.output(); !strings.Contains(got, "hello\n") || !strings.Contains(got, "oops\n") {
		t.Errorf("streamed %q", got)
	}
}

func TestShellBadInput(t *testing.T) {
	env, _ := shellEnv(t, allowDirect(), sandbox.DangerFullAccess)
	if _, err := runShell(t, context.Background(), env, map[string]any{"command": []string{}}); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("empty argv: %v", err)
	}
	if _, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"ls"}, "workdir": "/"}); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
		t.Errorf("workdir outside: %v", err)
	}
	if _, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"ls"}, "workdir": "../.."}); err == nil {
		t.Error("workdir ../.. accepted")
	}
	out, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"no-such-program-xyz"}})
	if err != nil || !strings.Contains(out.Text, "Exit code: 127") || !strings.Contains(out.Text, "no-such-program-xyz") {
		t.Errorf("missing program: %q, %v", out.Text, err)
	}
}

func TestShellNonUTF8AndLongOutput(t *testing.T) {
	env, _ := shellEnv(t, allowDirect(), sandbox.DangerFullAccess)
	out, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"printf", `a\377\376b`}})
	if err != nil || !strings.Contains(out.Text, "a\uFFFDb") {
		t.Errorf("non-UTF-8: %q, %v", out.Text, err)
	}
	out, err = runShell(t, context.Background(), env, map[string]any{"command": []string{"seq", "1", "1000"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Total output lines: 1000", "\n1\n", "[... omitted lines 129 to 872 of 1000 (2976 of 3893 bytes) ...]", "Total output bytes: 3893", "\n1000"} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("long output lacks %q:\n%s", want, out.Text)
		}
	}
	if strings.Contains(out.Text, "\n500\n") {
		t.Error("the middle of a long output was not cut")
	}
}

func TestShellHidesSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-secret")
	t.Setenv("AGENT_LS_VISIBLE", "yes")
	env, _ := shellEnv(t, allowDirect(), sandbox.DangerFullAccess)
	out, _ := runShell(t, context.Background(), env, map[string]any{"command": []string{"env"}})
	if strings.Contains(out.Text, "sk-secret") || !strings.Contains(out.Text, "AGENT_LS_VISIBLE=yes") {
		t.Errorf("environment: %s", out.Text)
	}
}

// gone waits for pid to exit (a zombie nobody reaps yet has exited), for
// ten seconds at most.
func gone(t *testing.T, pid int) bool {
	t.Helper()
	exited, err := proctest.WaitExit(pid, 10*time.Second)
	if err != nil {
		t.Fatalf("waiting for process %d: %v", pid, err)
	}
	return exited
}

func childPid(t *testing.T, path string) int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("the command did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

func TestShellTimeoutKillsTheProcessGroup(t *testing.T) {
	env, _ := shellEnv(t, allowDirect(), sandbox.DangerFullAccess)
	pidFile := filepath.Join(env.Cwd, "child.pid")
	out, err := runShell(t, context.Background(), env, map[string]any{
		"command":    []string{"bash", "-c", "sleep 60 & echo $! > child.pid; echo started; wait"},
		"timeout_ms": 500,
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.Text, "Exit code: 124") || !strings.Contains(out.Text, "command timed out after 500 milliseconds") || !strings.Contains(out.Text, "started") {
		t.Errorf("output %q", out.Text)
	}
	if pid := childPid(t, pidFile); !gone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the forked child %d outlived the timeout", pid)
	}
}

func TestShellInterruptKillsTheProcessGroup(t *testing.T) {
	env, log := shellEnv(t, allowDirect(), sandbox.DangerFullAccess)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	ended := make(chan struct{})
	go func() {
		_, err := runShell(t, ctx, env, map[string]any{
			"command":    []string{"bash", "-c", "sleep 60 & echo $! > child.pid; echo started; wait"},
			"timeout_ms": 60000,
		})
		done <- err
		close(ended)
	}()
	if !log.waitOutput("started", ended) {
		t.Fatalf("the command ended before it started: %v", <-done)
	}
	cancel()
	if err := <-done; err == nil {
		t.Error("an interrupted command returned no error")
	}
	if pid := childPid(t, filepath.Join(env.Cwd, "child.pid")); !gone(t, pid) {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Errorf("the forked child %d outlived the interrupt", pid)
	}
}

func TestShellRejected(t *testing.T) {
	env, _ := shellEnv(t, &fakeApprover{reason: "rejected: the user declined"}, sandbox.WorkspaceWrite)
	out, err := runShell(t, context.Background(), env, map[string]any{
		"command": []string{"make"}, "sandbox_permissions": "require_escalated", "justification": "needs network",
	})
	if err != nil || !out.Rejected || !out.Failed || out.Text != "rejected: the user declined" {
		t.Errorf("rejected: %+v, %v", out, err)
	}
}

func TestShellSandboxDenialOffersRetry(t *testing.T) {
	if sandbox.LandlockABI() == 0 {
		t.Skip("SKIPPING: this kernel has no Landlock, so nothing is sandboxed")
	}
	ap := &fakeApprover{allow: true, sandbox: true, retry: false}
	env, _ := shellEnv(t, ap, sandbox.ReadOnly)
	out, err := runShell(t, context.Background(), env, map[string]any{"command": []string{"touch", filepath.Join(env.Cwd, "x")}})
	if err != nil {
		t.Fatal(err)
	}
	if !out.Failed || len(ap.retries) != 1 {
		t.Fatalf("read-only sandbox: output %q, retries asked %d", out.Text, len(ap.retries))
	}
	if _, err := os.Stat(filepath.Join(env.Cwd, "x")); err == nil {
		t.Error("the read-only sandbox let the command write")
	}
	// Allowed to retry: the second run is outside the sandbox and works.
	ap.retry = true
	out, err = runShell(t, context.Background(), env, map[string]any{"command": []string{"touch", filepath.Join(env.Cwd, "y")}})
	if err != nil || out.Failed {
		t.Fatalf("retry: %q, %v", out.Text, err)
	}
	if _, err := os.Stat(filepath.Join(env.Cwd, "y")); err != nil {
		t.Error("the unsandboxed retry did not run")
	}
}
