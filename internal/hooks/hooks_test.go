package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// script writes an executable shell script with body to a temporary
// directory and returns its absolute path.
func script(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "hook.sh")
	if err := os.WriteFile(p, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

func newRunner(t *testing.T, hooks ...Hook) *Runner {
	t.Helper()
	r, err := New(hooks)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func shellUse(cwd string) agent.ToolUse {
	return agent.ToolUse{SessionID: "s-1", TurnID: "s-1-t1", Cwd: cwd, CallID: "call_1", Name: "shell",
		Kind: event.KindExecute, Arguments: json.RawMessage(`{"command":["ls","-la"]}`)}
}

// TestHookInput: a hook reads the call as JSON on its standard input and
// runs in the session's directory; an after hook also reads the result,
// its output cut at MaxOutputBytes.
func TestHookInput(t *testing.T) {
	out := t.TempDir()
	cwd := t.TempDir()
	hook := script(t, `cat > "$1/in.json"; pwd > "$1/pwd"`)
	r := newRunner(t,
		Hook{Event: BeforeToolUse, Command: []string{hook, out}},
		Hook{Event: AfterToolUse, Command: []string{hook, filepath.Join(out, "after")}})
	if err := os.Mkdir(filepath.Join(out, "after"), 0o755); err != nil {
		t.Fatal(err)
	}
	if deny, err := r.BeforeTool(context.Background(), shellUse(cwd)); deny != "" || err != nil {
		t.Fatalf("BeforeTool = %q, %v", deny, err)
	}
	want := `{"event":"before_tool_use","sessionId":"s-1","turnId":"s-1-t1","cwd":"` + cwd +
		`","tool":{"name":"shell","kind":"execute","callId":"call_1","arguments":{"command":["ls","-la"]}}}`
	if got := readFile(t, filepath.Join(out, "in.json")); got != want {
		t.Errorf("stdin\n got %s\nwant %s", got, want)
	}
	if got := strings.TrimSpace(readFile(t, filepath.Join(out, "pwd"))); got != cwd {
		t.Errorf("the hook ran in %s, want %s", got, cwd)
	}

	long := strings.Repeat("é", MaxOutputBytes) // twice the bound, in two-byte characters
	if abort, err := r.AfterTool(context.Background(), shellUse(cwd), agent.ToolOutcome{Ran: true, Success: false, Output: long}); abort != "" || err != nil {
		t.Fatalf("AfterTool = %q, %v", abort, err)
	}
	var in struct {
		Event  string
		Tool   struct{ Name string }
		Result struct {
			Ran, Success    bool
			Output          string
			OutputTruncated bool
		}
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(out, "after", "in.json"))), &in); err != nil {
		t.Fatal(err)
	}
	res := in.Result
	if in.Event != "after_tool_use" || in.Tool.Name != "shell" || !res.Ran || res.Success || !res.OutputTruncated ||
		len(res.Output) != MaxOutputBytes || !strings.HasPrefix(long, res.Output) {
		t.Errorf("after input: event %s tool %s ran %v success %v truncated %v, %d bytes of output",
			in.Event, in.Tool.Name, res.Ran, res.Success, res.OutputTruncated, len(res.Output))
	}

	// A freeform call's input arrives as a JSON string.
	use := shellUse(cwd)
	use.Name, use.Arguments = "apply_patch", json.RawMessage(`"*** Begin Patch\n*** End Patch"`)
	if _, err := r.BeforeTool(context.Background(), use); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(out, "in.json")); !strings.Contains(got, `"arguments":"*** Begin Patch\n*** End Patch"`) {
		t.Errorf("freeform stdin %s", got)
	}
}

func readFile(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestHookDenies: exit status 2 denies with the trimmed standard error;
// the hooks after it do not run; with nothing on standard error the reason
// names the hook; a long one is cut.
func TestHookDenies(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "second-ran")
	deny := script(t, `echo "  not on a Friday  " >&2; echo ignored; exit 2`)
	second := script(t, `touch "`+marker+`"`)
	r := newRunner(t, Hook{Event: BeforeToolUse, Command: []string{deny}}, Hook{Event: BeforeToolUse, Command: []string{second}})
	got, err := r.BeforeTool(context.Background(), shellUse(t.TempDir()))
	if got != "not on a Friday" || err != nil {
		t.Errorf("BeforeTool = %q, %v", got, err)
	}
	if _, err := os.Stat(marker); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the hook after the denying one ran: %v", err)
	}

	silent := script(t, `exit 2`)
	r = newRunner(t, Hook{Event: BeforeToolUse, Command: []string{silent}})
	if got, _ := r.BeforeTool(context.Background(), shellUse(t.TempDir())); got != "denied by the before_tool_use hook "+silent {
		t.Errorf("silent denial: %q", got)
	}

	loud := script(t, `head -c 100000 /dev/zero | tr '\0' x >&2; exit 2`)
	r = newRunner(t, Hook{Event: BeforeToolUse, Command: []string{loud}})
	if got, _ := r.BeforeTool(context.Background(), shellUse(t.TempDir())); !strings.HasPrefix(got, "xxx") || len(got) > MaxReasonBytes+len("…") {
		t.Errorf("long reason: %d bytes", len(got))
	}
}

// TestHookAborts: exit status 2 of an after hook stops the turn with a
// reason that names the hook.
func TestHookAborts(t *testing.T) {
	hook := script(t, `echo "secrets in the output" >&2; exit 2`)
	r := newRunner(t, Hook{Event: AfterToolUse, Command: []string{hook}})
	abort, err := r.AfterTool(context.Background(), shellUse(t.TempDir()), agent.ToolOutcome{Ran: true, Success: true, Output: "AKIA..."})
	if err != nil || abort != "the after_tool_use hook "+hook+" stopped the turn: secrets in the output" {
		t.Errorf("AfterTool = %q, %v", abort, err)
	}
	// A before hook's verdict is not an after hook's.
	if deny, err := r.BeforeTool(context.Background(), shellUse(t.TempDir())); deny != "" || err != nil {
		t.Errorf("BeforeTool ran an after hook: %q, %v", deny, err)
	}
}

// TestHookFailures: another exit status and a missing program are errors
// that deny nothing, and the hooks after them still run.
func TestHookFailures(t *testing.T) {
	failing := script(t, `echo "cannot reach the audit server" >&2; exit 1`)
	missing := filepath.Join(t.TempDir(), "no-such-hook")
	deny := script(t, `echo denied >&2; exit 2`)
	r := newRunner(t,
		Hook{Event: BeforeToolUse, Command: []string{failing}},
		Hook{Event: BeforeToolUse, Command: []string{missing}},
		Hook{Event: BeforeToolUse, Command: []string{"agent-ls-no-such-hook-on-path"}})
	got, err := r.BeforeTool(context.Background(), shellUse(t.TempDir()))
	if got != "" || err == nil {
		t.Fatalf("BeforeTool = %q, %v", got, err)
	}
	for _, want := range []string{
		"before_tool_use hook " + failing + " failed (exit status 1): cannot reach the audit server",
		"before_tool_use hook " + missing + ": ",
		"before_tool_use hook agent-ls-no-such-hook-on-path: ",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	r = newRunner(t, Hook{Event: BeforeToolUse, Command: []string{failing}}, Hook{Event: BeforeToolUse, Command: []string{deny}})
	if got, err := r.BeforeTool(context.Background(), shellUse(t.TempDir())); got != "denied" || err == nil {
		t.Errorf("a failure then a denial: %q, %v", got, err)
	}
}

// TestHookTimeoutKillsItsProcessGroup: a hook that outlives its timeout
// is killed with what it started (a forked sleeper), and the call is not
// denied.
func TestHookTimeoutKillsItsProcessGroup(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	// The sleeper's pid is written before the hook waits on it; the
	// timeout is long enough for a shell to get there on a loaded machine.
	hook := script(t, `sleep 300 & echo $! > "`+pidFile+`.tmp"; mv "`+pidFile+`.tmp" "`+pidFile+`"; wait`)
	r := newRunner(t, Hook{Event: BeforeToolUse, Command: []string{hook}, Timeout: 3 * time.Second})
	deny, err := r.BeforeTool(context.Background(), shellUse(t.TempDir()))
	if deny != "" || err == nil || !strings.Contains(err.Error(), "timed out after 3s and was killed with its process group") {
		t.Fatalf("BeforeTool = %q, %v", deny, err)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the hook did not start its sleeper before the timeout: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	exited, err := proctest.WaitExit(pid, 20*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !exited {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill()
		}
		t.Fatalf("SURVIVOR: the hook's sleeper %d outlived the timeout", pid)
	}
}

// TestHookInterrupted: an interrupt ends a running hook at once, and is
// reported as such, not as a timeout.
func TestHookInterrupted(t *testing.T) {
	hook := script(t, `exec sleep 300`)
	r := newRunner(t, Hook{Event: AfterToolUse, Command: []string{hook}, Timeout: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if abort, err := r.AfterTool(ctx, shellUse(t.TempDir()), agent.ToolOutcome{}); abort != "" || !errors.Is(err, context.Canceled) {
		t.Errorf("AfterTool = %q, %v", abort, err)
	}
}

// TestHookFilters: a hook for some tools runs for those only; names are
// globs.
func TestHookFilters(t *testing.T) {
	deny := script(t, `exit 2`)
	r := newRunner(t,
		Hook{Event: BeforeToolUse, Tools: []string{"shell"}, Command: []string{deny}},
		Hook{Event: BeforeToolUse, Tools: []string{"github__*", "write_?ile"}, Command: []string{deny}})
	for tool, denied := range map[string]bool{
		"shell": true, "read_file": false, "shell2": false, "github__create_issue": true, "write_file": true, "apply_patch": false,
	} {
		use := shellUse(t.TempDir())
		use.Name = tool
		got, err := r.BeforeTool(context.Background(), use)
		if err != nil || (got != "") != denied {
			t.Errorf("%s: deny %q, %v; want denied %v", tool, got, err, denied)
		}
	}
}

// TestHookEnvironment: a hook gets the user's environment, credentials
// included: it is the user's own command, not the model's.
func TestHookEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-user")
	hook := script(t, `echo "key=$OPENAI_API_KEY" >&2; exit 2`)
	r := newRunner(t, Hook{Event: BeforeToolUse, Command: []string{hook}})
	if got, _ := r.BeforeTool(context.Background(), shellUse(t.TempDir())); got != "key=sk-user" {
		t.Errorf("the hook saw %q", got)
	}
}

func TestNewChecksHooks(t *testing.T) {
	_, err := New([]Hook{
		{Event: "after_everything", Command: []string{"/bin/true"}},
		{Event: BeforeToolUse},
		{Event: BeforeToolUse, Command: []string{"./check.sh"}},
		{Event: AfterToolUse, Command: []string{"/bin/true"}, Tools: []string{"[", ""}},
		{Event: AfterToolUse, Command: []string{"/bin/true"}, Timeout: -time.Second},
	})
	if err == nil {
		t.Fatal("bad hooks accepted")
	}
	for _, want := range []string{
		`hook 1: unknown hook event "after_everything" (use before_tool_use or after_tool_use)`,
		"hook 2: command is empty",
		`hook 3: command "./check.sh" is a relative path`,
		`hook 4: bad tool pattern "["`,
		`hook 4: bad tool pattern ""`,
		"hook 5: negative timeout -1s",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
	if _, err := New([]Hook{{Event: BeforeToolUse, Command: []string{"true"}}, {Event: AfterToolUse, Command: []string{"/bin/true"}, Tools: []string{"shell"}}}); err != nil {
		t.Errorf("good hooks: %v", err)
	}
	if r, err := New(nil); err != nil || r == nil {
		t.Errorf("no hooks: %v, %v", r, err)
	}
}

// TestHookThatIgnoresItsInput: a hook that exits without reading its
// standard input, however much there is, is not a failure.
func TestHookThatIgnoresItsInput(t *testing.T) {
	r := newRunner(t, Hook{Event: AfterToolUse, Command: []string{script(t, `exit 0`)}})
	out := agent.ToolOutcome{Ran: true, Success: true, Output: strings.Repeat("\"x\"\n", MaxOutputBytes)}
	if abort, err := r.AfterTool(context.Background(), shellUse(t.TempDir()), out); abort != "" || err != nil {
		t.Errorf("AfterTool = %q, %v", abort, err)
	}
}

// TestNilRunner: a nil Runner runs nothing.
func TestNilRunner(t *testing.T) {
	var r *Runner
	if deny, err := r.BeforeTool(context.Background(), shellUse(t.TempDir())); deny != "" || err != nil {
		t.Errorf("BeforeTool = %q, %v", deny, err)
	}
	if abort, err := r.AfterTool(context.Background(), shellUse(t.TempDir()), agent.ToolOutcome{}); abort != "" || err != nil {
		t.Errorf("AfterTool = %q, %v", abort, err)
	}
}
