package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/lspframe"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/testenv"
)

// binary is the agent-ls built for these tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "agent-ls-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// Change-set journals of the servers under test stay out of $HOME,
	// and the user's own config file stays out of the tests.
	os.Setenv("XDG_STATE_HOME", filepath.Join(dir, "state"))
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(dir, "config"))
	if binary = os.Getenv(builtBinaryVar); binary != "" {
		// a test run again inside a namespace (netns_e2e_test.go)
	} else if binary, err = buildBinaries(dir); err != nil {
		fmt.Fprintln(os.Stderr, "build:", err)
		os.Exit(1)
	}
	// So do the user's login-shell start-up files, which the commands
	// of these tests (`bash -lc …`) would otherwise run.
	if err := testenv.PrivateHome(filepath.Join(dir, "home")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type session struct {
	t     *testing.T
	ed    *editor.Editor
	model *fakemodel.Server
	dir   string
	ctx   context.Context
	log   *syncWriter
	// cmd is the server's process.
	cmd *exec.Cmd
}

// start runs the built server in a temporary workspace against a fake
// model, with an editor that opts into events and progress.
func start(t *testing.T, env []string, steps ...fakemodel.Step) *session {
	t.Helper()
	return startWith(t, env, editor.Config{}, editor.Options{Events: true, Progress: true}, steps...)
}

// startWith is start with the editor's behaviour and capabilities given.
func startWith(t *testing.T, env []string, cfg editor.Config, opts editor.Options, steps ...fakemodel.Step) *session {
	t.Helper()
	m := fakemodel.New(steps...)
	t.Cleanup(m.Close)
	return startOn(t, m, t.TempDir(), env, cfg, opts)
}

// startOn is startWith with the model server and the workspace given.
func startOn(t *testing.T, m *fakemodel.Server, dir string, env []string, cfg editor.Config, opts editor.Options) *session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cmd := exec.Command(binary, "--stdio", "--log-level", "debug")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex",
		"XDG_STATE_HOME="+t.TempDir())
	cmd.Env = append(cmd.Env, env...)
	log := &syncWriter{w: &strings.Builder{}}
	cmd.Stderr = log
	ed, err := editor.Start(cmd, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ed.Disconnect()
		// The server ends on its own once its input closes, writing
		// what it keeps into its state folder as it goes: the folder
		// is removed after it.
		wctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
		defer stop()
		ed.WaitExit(wctx)
		if t.Failed() {
			t.Logf("server log:\n%s", log.String())
		}
	})
	opts.WorkspaceFolders = []string{dir}
	if _, err := ed.Initialize(ctx, opts); err != nil {
		t.Fatal(err)
	}
	return &session{t: t, ed: ed, model: m, dir: dir, ctx: ctx, log: log, cmd: cmd}
}

// syncWriter collects the server's stderr, written by exec's copier while
// a failing test may read it.
type syncWriter struct {
	mu sync.Mutex
	w  *strings.Builder
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

type started struct {
	SessionID string `json:"sessionId"`
	TurnID    string `json:"turnId"`
}

func (s *session) startTurn(params map[string]any) started {
	s.t.Helper()
	var res started
	if err := s.ed.Request(s.ctx, "agent/startTurn", params, &res); err != nil {
		s.t.Fatalf("agent/startTurn: %v", err)
	}
	return res
}

func (s *session) events(turnID string) []editor.Event {
	var out []editor.Event
	for _, ev := range s.ed.Events() {
		if ev.TurnID == turnID {
			out = append(out, ev)
		}
	}
	return out
}

func (s *session) wait(turnID string) editor.Event {
	s.t.Helper()
	ev, err := s.ed.WaitTurnCompleted(s.ctx, turnID)
	if err != nil {
		s.t.Fatalf("waiting for turn %s: %v", turnID, err)
	}
	return ev
}

func types(evs []editor.Event) string {
	var ts []string
	for _, ev := range evs {
		ts = append(ts, string(ev.Type))
	}
	return strings.Join(ts, ",")
}

// collapse folds runs of one delta type ("a,a,a" → "a"): how a model
// splits its text is not the server's business.
func collapse(types string) string {
	var out []string
	for _, t := range strings.Split(types, ",") {
		if len(out) > 0 && out[len(out)-1] == t && strings.HasSuffix(t, "Delta") {
			continue
		}
		out = append(out, t)
	}
	return strings.Join(out, ",")
}

func text(evs []editor.Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Type == "messageDelta" {
			b.WriteString(ev.Delta)
		}
	}
	return b.String()
}

func TestTurnWithParallelToolCalls(t *testing.T) {
	plan := func(status string) string {
		return `{"plan":[{"step":"look","status":"` + status + `"}]}`
	}
	s := start(t, nil,
		fakemodel.Answer(
			fakemodel.Reasoning("enc-1", "Planning first."),
			fakemodel.FunctionCall("call_a", "update_plan", plan("in_progress")),
			fakemodel.FunctionCall("call_b", "update_plan", plan("completed")),
		),
		fakemodel.Answer(fakemodel.Message("All ", "done", ".")),
	)
	turn := s.startTurn(map[string]any{"prompt": "Make a plan\nand finish it"})
	done := s.wait(turn.TurnID)
	if done.Status != "completed" || done.LastMessage != "All done." {
		t.Fatalf("turnCompleted = %+v", done)
	}
	evs := s.events(turn.TurnID)
	for i, ev := range evs {
		if i > 0 && ev.Seq != evs[i-1].Seq+1 {
			t.Errorf("seq gap: %d after %d", ev.Seq, evs[i-1].Seq)
		}
	}
	got := collapse(types(evs))
	// The two calls run in parallel, so their plan/toolResult events may
	// interleave; everything else has one order.
	for _, want := range []string{
		"turnStarted,reasoningDelta,reasoning,usage,toolCall,toolCall,",
		",messageDelta,message,usage,turnCompleted",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("events %s\nlack %s", got, want)
		}
	}
	if strings.Count(got, "plan") != 2 || strings.Count(got, "toolResult") != 2 {
		t.Errorf("events %s: want two plan and two toolResult events", got)
	}
	if text(evs) != "All done." {
		t.Errorf("streamed text %q", text(evs))
	}
	for _, ev := range evs {
		if ev.Type == "toolCall" && (ev.Tool != "update_plan" || ev.Kind != "think" || !json.Valid(ev.Arguments)) {
			t.Errorf("toolCall %+v", ev)
		}
		if ev.Type == "toolResult" && (ev.Status != "completed" || ev.Output != "Plan updated") {
			t.Errorf("toolResult %+v", ev)
		}
	}
	// The second request carries both outputs and the encrypted reasoning.
	reqs := s.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	body := string(reqs[1].Body)
	for _, want := range []string{`"call_id":"call_a"`, `"call_id":"call_b"`, `"function_call_output"`, `"encrypted_content":"enc-1"`, `"prompt_cache_key":"` + turn.SessionID + `"`} {
		if !strings.Contains(body, want) {
			t.Errorf("second request lacks %s", want)
		}
	}
	// Progress: created, begun with the prompt's first line, a report per
	// tool call, ended.
	if _, err := s.ed.WaitProgress(s.ctx, func(p editor.Progress) bool { return p.Kind == "end" }); err != nil {
		t.Fatal(err)
	}
	var kinds []string
	var begin editor.Progress
	for _, p := range s.ed.Progress() {
		kinds = append(kinds, p.Kind)
		if p.Kind == "begin" {
			begin = p
		}
	}
	if k := strings.Join(kinds, ","); !strings.HasPrefix(k, "create,begin,") || !strings.HasSuffix(k, ",end") || strings.Count(k, "report") < 2 {
		t.Errorf("progress %s", k)
	}
	if begin.Title != "Agent" || begin.Message != "Make a plan" || !begin.Cancellable {
		t.Errorf("progress begin %+v", begin)
	}
}

func TestInterruptWhileStreaming(t *testing.T) {
	gate := fakemodel.NewGate(6)
	long := fakemodel.Say(strings.Repeat("word ", 50))
	long.Gate = gate
	s := start(t, nil, long, fakemodel.Say("second turn"))
	turn := s.startTurn(map[string]any{"prompt": "talk"})
	select {
	case <-gate.Reached():
	case <-s.ctx.Done():
		t.Fatal("the stream never reached the gate")
	}
	if err := s.ed.Request(s.ctx, "agent/interrupt", map[string]any{"sessionId": turn.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	if done := s.wait(turn.TurnID); done.Status != "interrupted" {
		t.Fatalf("turn = %+v", done)
	}
	gate.Release()
	next := s.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "again"})
	if done := s.wait(next.TurnID); done.Status != "completed" || done.LastMessage != "second turn" {
		t.Fatalf("next turn = %+v", done)
	}
}

func TestCancelProgressInterrupts(t *testing.T) {
	gate := fakemodel.NewGate(4)
	long := fakemodel.Say("never finished")
	long.Gate = gate
	s := start(t, nil, long)
	defer gate.Release()
	turn := s.startTurn(map[string]any{"prompt": "talk"})
	<-gate.Reached()
	begin, err := s.ed.WaitProgress(s.ctx, func(p editor.Progress) bool { return p.Kind == "begin" })
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ed.CancelProgress(s.ctx, begin.Token); err != nil {
		t.Fatal(err)
	}
	if done := s.wait(turn.TurnID); done.Status != "interrupted" {
		t.Fatalf("turn = %+v", done)
	}
}

func TestRetriesShowNoDuplicateText(t *testing.T) {
	answer := fakemodel.Answer(fakemodel.MessageN("one two three four five six seven eight", 8))
	answer.Failures = append(fakemodel.Times(1, fakemodel.HTTPError(500)), fakemodel.DisconnectAfter(7))
	s := start(t, nil, answer)
	turn := s.startTurn(map[string]any{"prompt": "count"})
	done := s.wait(turn.TurnID)
	if done.Status != "completed" {
		t.Fatalf("turn = %+v", done)
	}
	evs := s.events(turn.TurnID)
	if n := strings.Count(types(evs), "retry"); n != 2 {
		t.Errorf("%d retry events in %s, want 2", n, types(evs))
	}
	if got := text(evs); got != "one two three four five six seven eight" {
		t.Errorf("the client saw %q", got)
	}
}

func TestChatCompletionsWireWithToolCall(t *testing.T) {
	s := start(t, []string{"AGENT_LS_WIRE_API=chat", "AGENT_LS_MODEL=llama3"},
		fakemodel.Answer(fakemodel.FunctionCall("call_1", "update_plan", `{"plan":[{"step":"a","status":"completed"}]}`)),
		fakemodel.Say("Planned."),
	)
	turn := s.startTurn(map[string]any{"prompt": "plan"})
	if done := s.wait(turn.TurnID); done.Status != "completed" || done.LastMessage != "Planned." {
		t.Fatalf("turn = %+v", done)
	}
	reqs := s.model.Requests()
	if len(reqs) != 2 || !strings.HasSuffix(reqs[0].Path, "/chat/completions") {
		t.Fatalf("requests %d, first to %s", len(reqs), reqs[0].Path)
	}
	// Chat Completions has no freeform tools: apply_patch is a function
	// taking the patch as `input`.
	var first struct {
		Tools []struct {
			Function struct {
				Name       string         `json:"name"`
				Parameters map[string]any `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
	}
	json.Unmarshal(reqs[0].Body, &first)
	found := false
	for _, tool := range first.Tools {
		if tool.Function.Name == "apply_patch" {
			props, _ := tool.Function.Parameters["properties"].(map[string]any)
			found = props["input"] != nil
		}
	}
	if !found {
		t.Errorf("apply_patch is not offered as a function with an input string: %s", reqs[0].Body)
	}
	if body := string(reqs[1].Body); !strings.Contains(body, `"role":"tool"`) || !strings.Contains(body, `"tool_call_id":"call_1"`) {
		t.Errorf("second chat request lacks the tool message: %s", body)
	}
	if !strings.Contains(types(s.events(turn.TurnID)), "plan") {
		t.Error("no plan event")
	}
}

// The editor's text reaches the agent exactly, even after a burst of
// incremental edits: the turn's context carries the whole document.
func TestEditBurstThenContext(t *testing.T) {
	s := start(t, nil, fakemodel.Say("ok"))
	path := filepath.Join(s.dir, "burst.txt")
	uri := "file://" + path
	if err := os.WriteFile(path, []byte("on disk\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Open(s.ctx, uri, "plaintext", "start\n"); err != nil {
		t.Fatal(err)
	}
	for i := range 5000 {
		line := uint32(i % 7)
		r := &protocol.Range{Start: protocol.Position{Line: line}, End: protocol.Position{Line: line}}
		if err := s.ed.Change(s.ctx, uri, editor.Change{Range: r, Text: strconv.Itoa(i) + "é😀\n"}); err != nil {
			t.Fatal(err)
		}
	}
	want, _, _ := s.ed.Text(uri)
	turn := s.startTurn(map[string]any{"prompt": "look", "context": []map[string]any{{"uri": uri}}})
	s.wait(turn.TurnID)
	body := string(s.model.Requests()[0].Body)
	var req struct {
		Input []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"input"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	last, _ := json.Marshal(req.Input[len(req.Input)-1].Content)
	wantJSON, _ := json.Marshal(strings.TrimRight(want, "\n"))
	if !strings.Contains(string(last), strings.Trim(string(wantJSON), `"`)) {
		t.Errorf("the prompt does not carry the editor's text (%d bytes)", len(want))
	}
}

func TestMissingAPIKeyFailsAtOnce(t *testing.T) {
	s := start(t, []string{"OPENAI_BASE_URL=", "OPENAI_API_KEY="})
	turn := s.startTurn(map[string]any{"prompt": "hello"})
	done := s.wait(turn.TurnID)
	if done.Status != "failed" || !strings.Contains(done.Error, "OPENAI_API_KEY") {
		t.Fatalf("turn = %+v, want failed with a message naming OPENAI_API_KEY", done)
	}
}

// Malformed input gets an error answer and the server stays up.
func TestMalformedInputOverStdio(t *testing.T) {
	cmd := exec.Command(binary)
	cmd.Dir = t.TempDir()
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	r := bufio.NewReader(stdout)
	send := func(body string) {
		t.Helper()
		if err := lspframe.Write(stdin, []byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	recv := func() map[string]any {
		t.Helper()
		body, err := lspframe.Read(r)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		json.Unmarshal(body, &m)
		return m
	}
	errCode := func(m map[string]any) float64 {
		e, _ := m["error"].(map[string]any)
		c, _ := e["code"].(float64)
		return c
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"agent/newSession","params":{}}`)
	if c := errCode(recv()); c != -32002 {
		t.Errorf("request before initialize: code %v, want -32002", c)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}`)
	if m := recv(); m["result"] == nil {
		t.Fatalf("initialize: %v", m)
	}
	send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":`) // truncated JSON
	if c := errCode(recv()); c != -32700 {
		t.Errorf("bad JSON: code %v, want -32700", c)
	}
	send(`{"jsonrpc":"2.0","id":4,"method":"agent/startTurn","params":{"prompt":42}}`)
	if c := errCode(recv()); c != -32602 {
		t.Errorf("wrong param type: code %v, want -32602", c)
	}
	send(`{"jsonrpc":"2.0","id":5,"method":"no/such/method","params":{}}`)
	if c := errCode(recv()); c != -32601 {
		t.Errorf("unknown method: code %v, want -32601", c)
	}
	send(`{"jsonrpc":"2.0","id":6,"method":"agent/startTurn","params":{"sessionId":"nope","prompt":"x"}}`)
	if c := errCode(recv()); c != -32602 {
		t.Errorf("unknown session: code %v, want -32602", c)
	}
	send(`{"jsonrpc":"2.0","id":7,"method":"shutdown"}`)
	recv()
	send(`{"jsonrpc":"2.0","method":"exit"}`)
	stdin.Close()
	io.Copy(io.Discard, r)
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit after shutdown: %v, want status 0", err)
	}
}

func TestExitWithoutShutdownIsOne(t *testing.T) {
	s := start(t, nil)
	code, err := s.ed.Exit(s.ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code != 1 {
		t.Errorf("exit without shutdown: status %d, want 1", code)
	}
}

// TestDemo runs `agent-ls demo` with the Go build cache where Go puts it
// by default (GOCACHE unset: ~/.cache/go-build, read-only in the sandbox)
// and checks that its sandboxed go test ran and that what it says matches
// the tool results it shows.
func TestDemo(t *testing.T) {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GOCACHE=") && !strings.HasPrefix(kv, "XDG_CACHE_HOME=") {
			env = append(env, kv)
		}
	}
	cmd := exec.Command(binary, "demo", "--pace", "0")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("demo: %v\n%s", err, out)
	}
	if err := checkDemoNarration(string(out)); err != nil {
		t.Errorf("the demo's narration does not match its tool results: %v\n%s", err, out)
	}
	for _, want := range []string{"Agent: Fix this", "── plan", "wants to run: go test ./...", "[Allow always]", "(approval exec: allowAlways)",
		"FAIL: TestRoundTrip", "── answer", "wants to change 2 file(s)", "── file change (applied)", "+\treturn (f - 32) * 5 / 9",
		"+func TestBodyTemperature", "(approval exec: autoAllow)", "ok  \texample.com/temperature", "── turn completed",
		"status bar ended with", "exit status 0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
}
