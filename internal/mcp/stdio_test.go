package mcp

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/proctest"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// TestOurStdioServer: tools are listed under their model names with their
// schemas sanitized, calls give text, images and errors, and the server
// is told nothing of our environment.
func TestOurStdioServer(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-test-must-not-leak")
	cfg := ourServer(t, "ours", "tools")
	cfg.Env["GIVEN_BY_CONFIG"] = "yes"
	cfg.DisabledTools = []string{"add_tool"}
	set, reg, fails := startSet(t, cfg)

	st := statusOf(t, set, "ours")
	if st.State != StateReady || st.Error != "" {
		t.Fatalf("status %+v", st)
	}
	if want := []string{"crash", "echo", "env", "fail", "image"}; !slices.Equal(st.Tools, want) {
		t.Errorf("tools %q, want %q", st.Tools, want)
	}
	names := reg.Names()
	if want := []string{"ours__crash", "ours__echo", "ours__env", "ours__fail", "ours__image"}; !slices.Equal(names, want) {
		t.Errorf("registry %q, want %q", names, want)
	}
	h, _ := reg.Lookup("ours__echo")
	if sp := h.Spec(); sp.Server != "ours" || sp.ServerTool != "echo" || h.Mutating(nil) {
		t.Errorf("echo: %+v mutating %v", sp, h.Mutating(nil))
	}
	if h, _ := reg.Lookup("ours__crash"); !h.Mutating(nil) {
		t.Error("crash, not annotated read-only, is not mutating")
	}

	if r := call(t, reg, nil, "ours__echo", map[string]any{"text": "hi"}); r.Output.Text != "echo: hi" || r.Output.Failed {
		t.Errorf("echo: %+v", r.Output)
	}
	// Arguments are checked against the schema before the server sees them.
	if r := call(t, reg, nil, "ours__echo", map[string]any{"txt": "hi"}); !r.Output.Failed || r.Ran {
		t.Errorf("echo without text: %+v", r)
	}
	r := call(t, reg, nil, "ours__image", map[string]any{})
	if len(r.Output.Images) != 1 || r.Output.Images[0] != "data:image/png;base64,"+tinyPNG {
		t.Errorf("image: %+v", r.Output)
	}
	mustContain(t, "image output", r.Output.Text, "a dot", "[image 1: image/png")
	if r := call(t, reg, nil, "ours__fail", map[string]any{}); !r.Output.Failed || r.Output.Text != "the database is locked" {
		t.Errorf("isError: %+v", r.Output)
	}
	if r := call(t, reg, nil, "ours__env", map[string]any{"name": "OPENAI_API_KEY"}); r.Output.Text != `false ""` {
		t.Errorf("the server sees OPENAI_API_KEY: %s", r.Output.Text)
	}
	if r := call(t, reg, nil, "ours__env", map[string]any{"name": "GIVEN_BY_CONFIG"}); r.Output.Text != `true "yes"` {
		t.Errorf("the server does not see its env: %s", r.Output.Text)
	}
	if r := call(t, reg, nil, "ours__env", map[string]any{"name": "PATH"}); !strings.HasPrefix(r.Output.Text, "true") {
		t.Errorf("the server has no PATH: %s", r.Output.Text)
	}
	if got := fails.list(); len(got) > 0 {
		t.Errorf("failures reported: %q", got)
	}
}

// TestApprovalRequest: a call asks the approver with the server's names
// and annotations, and a refusal never reaches the server.
func TestApprovalRequest(t *testing.T) {
	cfg := ourServer(t, "ours", "tools")
	cfg.AutoApprove = true
	_, reg, _ := startSet(t, cfg)
	a := &approver{refuse: true}
	r := call(t, reg, a, "ours__fail", map[string]any{})
	if !r.Output.Rejected || r.Output.Text != "refused by the test" {
		t.Errorf("refused call: %+v", r.Output)
	}
	call(t, reg, a, "ours__echo", map[string]any{"text": "x"})
	want := []tools.ToolRequest{
		{CallID: "c1", Server: "ours", Tool: "fail", Arguments: []byte("{}"), AutoApprove: true},
		{CallID: "c1", Server: "ours", Tool: "echo", Arguments: []byte(`{"text":"x"}`), ReadOnly: true, AutoApprove: true},
	}
	if len(a.requests) != 2 {
		t.Fatalf("requests %+v", a.requests)
	}
	for i, w := range want {
		g := a.requests[i]
		if g.Server != w.Server || g.Tool != w.Tool || string(g.Arguments) != string(w.Arguments) || g.ReadOnly != w.ReadOnly || g.AutoApprove != w.AutoApprove {
			t.Errorf("request %d: %+v, want %+v", i, g, w)
		}
	}
}

// TestListChangedStdio: a tool the server adds reaches the registry for
// the next request (Ready waits for the new list).
func TestListChangedStdio(t *testing.T) {
	set, reg, _ := startSet(t, ourServer(t, "ours", "tools"))
	if _, ok := reg.Lookup("ours__late"); ok {
		t.Fatal("late is there from the start")
	}
	if r := call(t, reg, nil, "ours__add_tool", map[string]any{}); r.Output.Text != "added" {
		t.Fatalf("add_tool: %+v", r.Output)
	}
	waitFor(t, set, func() bool { _, ok := reg.Lookup("ours__late"); return ok })
	if r := call(t, reg, nil, "ours__late", map[string]any{}); r.Output.Text != "late tool here" {
		t.Errorf("late: %+v", r.Output)
	}
}

// waitFor waits, through Ready, until cond holds. The notification may
// come after the call's answer, so Ready alone cannot promise it.
func waitFor(t *testing.T, set *Set, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 30s")
		}
		set.Ready(context.Background())
		time.Sleep(20 * time.Millisecond)
	}
}

// TestExitAtStartup: a server that exits at once is failed, with its
// stderr in the status, reported once, and the others start.
func TestExitAtStartup(t *testing.T) {
	set, reg, fails := startSet(t, ourServer(t, "broken", "exit"), ourServer(t, "good", "tools"))
	st := statusOf(t, set, "broken")
	if st.State != StateFailed || len(st.Tools) != 0 {
		t.Errorf("status %+v", st)
	}
	mustContain(t, "error", st.Error, "the server exited at startup (exit status 3; its stderr says why)")
	if !slices.Contains(st.StderrTail, "fatal: cannot open the database /nonexistent/db.sqlite") {
		t.Errorf("stderr tail %q", st.StderrTail)
	}
	if got := fails.list(); len(got) != 1 || !strings.HasPrefix(got[0], "broken: ") {
		t.Errorf("failures %q", got)
	}
	if statusOf(t, set, "good").State != StateReady {
		t.Error("the good server is not ready")
	}
	for _, n := range reg.Names() {
		if strings.HasPrefix(n, "broken__") {
			t.Errorf("tool %s of the broken server is offered", n)
		}
	}
}

// TestStartupTimeout: a server that never answers fails after its
// startup timeout, and Ready does not wait longer.
func TestStartupTimeout(t *testing.T) {
	cfg := ourServer(t, "slow", "hang")
	cfg.StartupTimeout = 300 * time.Millisecond
	set, _, fails := startSet(t, cfg)
	st := statusOf(t, set, "slow")
	if st.State != StateFailed {
		t.Fatalf("status %+v", st)
	}
	mustContain(t, "error", st.Error, "did not start within 300ms (startup_timeout_sec)")
	if len(fails.list()) != 1 {
		t.Errorf("failures %q", fails.list())
	}
}

// TestLegacyServer: a server of an older protocol that never answers a
// method it does not know starts within its startup timeout over the
// initialize handshake, its tools listed over two pages. An answer that
// is not valid MCP (an image whose data is not base64) fails that call
// only.
func TestLegacyServer(t *testing.T) {
	cfg := ourServer(t, "legacy", "legacy")
	cfg.StartupTimeout = 4 * time.Second
	set, reg, fails := startSet(t, cfg)
	if st := statusOf(t, set, "legacy"); st.State != StateReady || !slices.Equal(st.Tools, []string{"bad_image", "echo"}) {
		t.Fatalf("status %+v", st)
	}
	if r := call(t, reg, nil, "legacy__echo", map[string]any{"text": "old"}); r.Output.Text != "legacy echo: old" {
		t.Errorf("echo: %+v", r.Output)
	}
	// An answer that cannot be read fails the call, not the server.
	if r := call(t, reg, nil, "legacy__bad_image", map[string]any{}); !r.Output.Failed || strings.Contains(r.Output.Text, "restarted") {
		t.Errorf("bad image: %+v", r.Output)
	} else {
		mustContain(t, "bad image", r.Output.Text, "not valid base64")
	}
	if st := statusOf(t, set, "legacy"); st.State != StateReady {
		t.Errorf("status after a bad answer %+v", st)
	}
	if got := fails.list(); len(got) > 0 {
		t.Errorf("failures %q", got)
	}
}

// TestToolPagesLoop: a server whose tools/list pages never end fails to
// start when a cursor comes back, not at its startup timeout.
func TestToolPagesLoop(t *testing.T) {
	cfg := ourServer(t, "loop", "legacy")
	cfg.Env["LEGACY_LOOP"] = "1"
	set, _, _ := startSet(t, cfg)
	st := statusOf(t, set, "loop")
	if st.State != StateFailed {
		t.Fatalf("status %+v", st)
	}
	mustContain(t, "error", st.Error, "tools/list", "came back")
}

// TestCrashRestartDisable: a crash is an error output; the server starts
// again on its next use; the third failure in a row disables it: its
// tools are withdrawn and the user is told once.
func TestCrashRestartDisable(t *testing.T) {
	set, reg, fails := startSet(t, ourServer(t, "ours", "tools"))
	for i := 1; i <= MaxFailures; i++ {
		r := call(t, reg, nil, "ours__crash", map[string]any{})
		if !r.Output.Failed {
			t.Fatalf("crash %d: %+v", i, r.Output)
		}
		mustContain(t, "crash output", r.Output.Text, "MCP server ours", "the connection to the server broke during crash")
		if i < MaxFailures {
			mustContain(t, "crash output", r.Output.Text, "restarted on its next use")
			if st := statusOf(t, set, "ours"); st.State != StateFailed || !slices.Contains(st.StderrTail, "crashing on purpose") {
				t.Errorf("after crash %d: %+v", i, st)
			}
		} else {
			mustContain(t, "last crash output", r.Output.Text, "disabled for this session after 3 failures in a row")
		}
	}
	st := statusOf(t, set, "ours")
	if st.State != StateFailed || len(st.Tools) != 0 {
		t.Errorf("status %+v", st)
	}
	mustContain(t, "status error", st.Error, "disabled for this session after 3 failures in a row")
	if names := reg.Names(); len(names) != 0 {
		t.Errorf("tools still offered: %q", names)
	}
	if got := fails.list(); len(got) != 1 || !strings.Contains(got[0], "disabled for this session") {
		t.Errorf("failures %q", got)
	}
}

// TestSuccessResetsFailures: a call that goes through after a restart
// starts the count again, so scattered crashes never disable a server.
func TestSuccessResetsFailures(t *testing.T) {
	set, reg, _ := startSet(t, ourServer(t, "ours", "tools"))
	for i := 0; i < MaxFailures+1; i++ {
		if r := call(t, reg, nil, "ours__crash", map[string]any{}); !r.Output.Failed {
			t.Fatalf("crash: %+v", r.Output)
		}
		if r := call(t, reg, nil, "ours__echo", map[string]any{"text": "back"}); r.Output.Text != "echo: back" {
			t.Fatalf("echo after crash %d: %+v", i, r.Output)
		}
	}
	if st := statusOf(t, set, "ours"); st.State != StateReady {
		t.Errorf("status %+v", st)
	}
}

// TestInterruptedCall: a call whose turn is interrupted ends at once and
// does not count against the server.
func TestInterruptedCall(t *testing.T) {
	set, reg, _ := startSet(t, npmOrSkipEverything(t))
	ctx, cancel := context.WithCancel(context.Background())
	c := &tools.Call{CallID: "c1", Name: "everything__trigger-long-running-operation", Type: tools.Function,
		Arguments: []byte(`{"duration": 30, "steps": 3}`)}
	done := make(chan tools.Result, 1)
	go func() {
		done <- reg.Run(ctx, &tools.Env{Approver: &approver{}}, []*tools.Call{c}, func(*tools.Call, tools.Handler, tools.Result) {})[0]
	}()
	time.Sleep(200 * time.Millisecond)
	cancel()
	r := <-done
	if !r.Aborted {
		t.Errorf("result %+v", r)
	}
	if st := statusOf(t, set, "everything"); st.State != StateReady {
		t.Errorf("status after an interrupt: %+v", st)
	}
}

func npmOrSkipEverything(t *testing.T) ServerConfig {
	return npmServer(t, "everything", "mcp-server-everything", "stdio")
}

// TestCloseLeavesNothing: closing the set stops every server and what it
// started, a server still starting included.
func TestCloseLeavesNothing(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	marker := proctest.Marker()
	hang := ServerConfig{Name: "hang", Command: "bash", Args: []string{"-c", "(exec -a " + marker + " sleep 600) & wait"}, StartupTimeout: 10 * time.Minute}
	child := ServerConfig{Name: "child", Command: "bash", Args: []string{"-c", "(exec -a " + marker + " sleep 600) & exec " + os.Args[0]},
		Env: map[string]string{serverModeVar: "tools"}}
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet([]ServerConfig{hang, child}, Options{Registry: reg})
	if err != nil {
		t.Fatal(err)
	}
	set.Start()
	for len(proctest.Find(marker)) < 2 {
		time.Sleep(10 * time.Millisecond)
	}
	set.Close()
	proctest.Gone(t, marker)
	if names := reg.Names(); len(names) != 0 {
		t.Errorf("tools left after Close: %q", names)
	}
}

// TestHostileServer: what a hostile or careless server offers cannot
// hurt agent-ls: a looping schema leaves that tool out and the rest in, a
// long name in other scripts becomes a valid name, a huge description and
// a huge answer are cut, a flood of list_changed costs a listing or two.
func TestHostileServer(t *testing.T) {
	set, reg, _ := startSet(t, ourServer(t, "hostile", "hostile"))
	st := statusOf(t, set, "hostile")
	if st.State != StateReady || slices.Contains(st.Tools, "loop") {
		t.Fatalf("status %+v", st)
	}
	names := reg.Names()
	if len(names) != 4 {
		t.Fatalf("names %q", names)
	}
	for _, n := range names {
		if !apiName.MatchString(n) {
			t.Errorf("%q is not a name the APIs take", n)
		}
	}
	h, _ := reg.Lookup("hostile__verbose")
	if d := h.Spec().Description; len(d) > maxDescriptionLen+len("…") {
		t.Errorf("description of %d bytes", len(d))
	}
	r := call(t, reg, nil, "hostile__huge", map[string]any{})
	if len(r.Output.Text) > 40<<10 || !strings.Contains(r.Output.Text, "[output cut at ") {
		t.Errorf("huge answer: %d bytes", len(r.Output.Text))
	}
	if r := call(t, reg, nil, "hostile__flood", map[string]any{}); r.Output.Text != "flooded" {
		t.Errorf("flood: %+v", r.Output)
	}
	set.Ready(context.Background())
	if r := call(t, reg, nil, "hostile__huge", map[string]any{}); r.Output.Failed {
		t.Errorf("after the flood: %+v", r.Output)
	}
	if got := reg.Names(); !slices.Equal(got, names) {
		t.Errorf("names after the flood %q, want %q", got, names)
	}
}
