package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

type sessionList struct {
	Sessions []struct {
		SessionID string `json:"sessionId"`
		Cwd       string `json:"cwd"`
		Title     string `json:"title"`
		Turns     int    `json:"turns"`
	} `json:"sessions"`
}

type resumed struct {
	SessionID string            `json:"sessionId"`
	Model     string            `json:"model"`
	Items     []json.RawMessage `json:"items"`
}

func itemTypes(items []json.RawMessage) string {
	var out []string
	for _, raw := range items {
		var it struct {
			Type string `json:"type"`
		}
		json.Unmarshal(raw, &it)
		out = append(out, it.Type)
	}
	return strings.Join(out, ",")
}

// The server is killed (SIGKILL) while a turn waits on the model; a new
// server lists the session, resumes it, and its next turn sends the model
// everything the killed one had finished.
func TestSessionSurvivesKillMidTurn(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	gate := fakemodel.NewGate(3)
	m := fakemodel.New(
		fakemodel.Say("first answer"),
		fakemodel.Answer(fakemodel.FunctionCall("plan1", "update_plan", `{"plan":[{"step":"look","status":"in_progress"}]}`)),
		fakemodel.Step{Reply: fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("never ", "finished")}}, Gate: gate},
	)
	t.Cleanup(m.Close)
	s := startOn(t, m, ws, env, editor.Config{}, editor.Options{Events: true})
	first := s.startTurn(map[string]any{"prompt": "first prompt"})
	s.wait(first.TurnID)
	second := s.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "second prompt"})
	select {
	case <-gate.Reached():
	case <-s.ctx.Done():
		t.Fatal("the second turn never reached its last request")
	}
	// SIGKILL: nothing of agent-ls runs after it (the editor fake reaps
	// the process; the next server starts once it is gone, and its lock
	// on the record with it).
	if err := s.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	s.ed.WaitExit(s.ctx)
	gate.Release()

	m2 := fakemodel.New(fakemodel.Say("resumed answer"))
	t.Cleanup(m2.Close)
	s2 := startOn(t, m2, ws, env, editor.Config{}, editor.Options{Events: true})
	var list sessionList
	if err := s2.ed.Request(s2.ctx, "agent/listSessions", map[string]any{}, &list); err != nil {
		t.Fatal(err)
	}
	if len(list.Sessions) != 1 || list.Sessions[0].SessionID != first.SessionID || list.Sessions[0].Turns != 2 || list.Sessions[0].Title != "first prompt" {
		t.Fatalf("listSessions after the kill: %+v", list)
	}
	var res resumed
	if err := s2.ed.Request(s2.ctx, "agent/resumeSession", map[string]any{"sessionId": first.SessionID}, &res); err != nil {
		t.Fatal(err)
	}
	if got := itemTypes(res.Items); got != "turnStarted,message,turnCompleted,turnStarted,toolCall,plan,toolResult,turnCompleted" {
		t.Errorf("history items %s", got)
	}
	var last struct {
		TurnID, Status, Error string
	}
	json.Unmarshal(res.Items[len(res.Items)-1], &last)
	if last.TurnID != second.TurnID || last.Status != "interrupted" {
		t.Errorf("the killed turn is drawn as %s", res.Items[len(res.Items)-1])
	}

	third := s2.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "third prompt"})
	if done := s2.wait(third.TurnID); done.Status != "completed" || done.LastMessage != "resumed answer" {
		t.Fatalf("turn after the restart: %+v", done)
	}
	if third.TurnID != first.SessionID+"-t3" {
		t.Errorf("turn id %s after two turns", third.TurnID)
	}
	reqs := m2.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	input, _ := json.Marshal(reqs[0].JSON["input"])
	body := string(input)
	order := []string{"first prompt", "first answer", "second prompt", `"call_id":"plan1"`, `"type":"function_call_output"`, "third prompt"}
	at := 0
	for _, want := range order {
		i := strings.Index(body[at:], want)
		if i < 0 {
			t.Fatalf("the request after the restart lacks %q after position %d:\n%s", want, at, body)
		}
		at += i + len(want)
	}
	if strings.Contains(body, "never finished") {
		t.Error("the answer in flight at the kill reached the history")
	}
}

// exec keeps its session; --last and --resume go on with it (its history
// sent to the model), and after a restart the editor undoes a turn exec
// made.
func TestExecResumeAndUndoAfterRestart(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	runExec := func(m *fakemodel.Server, args ...string) (string, string) {
		t.Helper()
		cmd := execCmd(t, m, args...)
		cmd.Dir = ws
		cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+state)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if code := exitCode(cmd.Run()); code != 0 {
			t.Fatalf("exec %v: exit %d:\n%s", args, code, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	m := fakemodel.New(fakemodel.Answer(fakemodel.CustomToolCall("p1", "apply_patch", "*** Begin Patch\n*** Add File: made.txt\n+made\n*** End Patch")), fakemodel.Say("made it"))
	defer m.Close()
	_, stderr := runExec(m, "--full-auto", "make a file")
	id := regexp.MustCompile(`session (s-[0-9a-f]+)`).FindStringSubmatch(stderr)
	if id == nil {
		t.Fatalf("exec did not name its session:\n%s", stderr)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err != nil {
		t.Fatal(err)
	}

	m2 := fakemodel.New(fakemodel.Say("second"), fakemodel.Say("third"))
	defer m2.Close()
	out, stderr := runExec(m2, "--last", "what did you make?")
	if out != "second\n" || !strings.Contains(stderr, "resuming session "+id[1]+" (1 turn,") {
		t.Errorf("--last: stdout %q, stderr:\n%s", out, stderr)
	}
	runExec(m2, "--resume", id[1], "and now?")
	reqs := m2.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	for i, want := range [][]string{{"make a file", "made it", "what did you make?"}, {"make a file", "what did you make?", "second", "and now?"}} {
		body, _ := json.Marshal(reqs[i].JSON["input"])
		for _, w := range want {
			if !bytes.Contains(body, []byte(w)) {
				t.Errorf("request %d lacks %q", i, w)
			}
		}
	}

	// An editor, after all that, lists the session and undoes exec's first turn.
	m3 := fakemodel.New()
	defer m3.Close()
	s := startOn(t, m3, ws, []string{"XDG_STATE_HOME=" + state}, editor.Config{}, editor.Options{Events: true})
	var res resumed
	if err := s.ed.Request(s.ctx, "agent/resumeSession", map[string]any{"sessionId": id[1]}, &res); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(itemTypes(res.Items), "turnStarted"); got != 3 {
		t.Errorf("%d turns resumed: %s", got, itemTypes(res.Items))
	}
	var undo struct {
		Files []string `json:"files"`
	}
	if err := s.ed.Request(s.ctx, "agent/undoTurn", map[string]any{"sessionId": id[1], "turnId": id[1] + "-t1"}, &undo); err != nil {
		t.Fatalf("undo of a turn from another process: %v", err)
	}
	if len(undo.Files) != 1 || !strings.HasSuffix(undo.Files[0], "/made.txt") {
		t.Errorf("undo restored %v", undo.Files)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt after undo: %v", err)
	}
	// Nothing of the sessions is in the workspace.
	entries, _ := os.ReadDir(ws)
	if len(entries) != 0 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Errorf("the workspace holds %v", names)
	}
	// agent-ls sessions lists it; --prune 1 keeps it (it is new).
	list := exec.Command(binary, "sessions")
	list.Dir, list.Env = ws, append(os.Environ(), "XDG_STATE_HOME="+state)
	b, err := list.CombinedOutput()
	if err != nil || !strings.Contains(string(b), id[1]) || !strings.Contains(string(b), "make a file") {
		t.Errorf("agent-ls sessions: %v\n%s", err, b)
	}
	prune := exec.Command(binary, "sessions", "--prune", "1")
	prune.Env = list.Env
	if b, err := prune.CombinedOutput(); err != nil || !strings.Contains(string(b), "deleted 0 session") {
		t.Errorf("--prune: %v\n%s", err, b)
	}
}

// An "allow always" answer holds for the session after the server
// restarts, for the same command only: a longer one is asked about again.
func TestAllowAlwaysAfterRestart(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	var mu sync.Mutex
	asked := 0
	cfg := editor.Config{Request: func(_ context.Context, method string, _ json.RawMessage) (any, error) {
		mu.Lock()
		asked++
		mu.Unlock()
		return map[string]string{"decision": "allowAlways"}, nil
	}}
	opts := editor.Options{Events: true, Approvals: true, InitializationOptions: map[string]any{"approvalPolicy": "untrusted"}}
	m := fakemodel.New(fakemodel.Answer(shellCall("c0", "sh", "-c", "echo again > again.txt")),
		fakemodel.Answer(shellCall("c1", "touch", "made-1")), fakemodel.Say("done"))
	t.Cleanup(m.Close)
	s := startOn(t, m, ws, env, cfg, opts)
	first := s.startTurn(map[string]any{"prompt": "touch it"})
	if done := s.wait(first.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	s.ed.Disconnect()
	if asked != 2 {
		t.Fatalf("asked %d times", asked)
	}
	os.Remove(filepath.Join(ws, "again.txt"))

	m2 := fakemodel.New(fakemodel.Answer(shellCall("c2", "sh", "-c", "echo again > again.txt")),
		fakemodel.Answer(shellCall("c3", "touch", "made-1", "made-2")), fakemodel.Say("done again"))
	t.Cleanup(m2.Close)
	s2 := startOn(t, m2, ws, env, cfg, opts)
	if err := s2.ed.Request(s2.ctx, "agent/resumeSession", map[string]any{"sessionId": first.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	second := s2.startTurn(map[string]any{"sessionId": first.SessionID, "prompt": "touch more"})
	if done := s2.wait(second.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	mu.Lock()
	defer mu.Unlock()
	if asked != 3 {
		t.Errorf("asked %d times in all, want 3: the restarted server asks only about the longer command", asked)
	}
	var decisions []string
	for _, ev := range s2.events(second.TurnID) {
		if ev.Type == "approval" {
			decisions = append(decisions, ev.Decision)
		}
	}
	if strings.Join(decisions, ",") != "autoAllow,allowAlways" {
		t.Errorf("approvals after the restart: %v", decisions)
	}
	if _, err := os.Stat(filepath.Join(ws, "again.txt")); err != nil {
		t.Errorf("the command allowed always did not run after the restart: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "made-2")); err != nil {
		t.Errorf("the longer command, allowed when asked, did not run: %v", err)
	}
}

// A client with no agent-specific code goes on with the workspace's last
// conversation after the server restarts: a plain agent.startTurn
// continues it, with its history, and its transcript is written anew
// from the record.
func TestPlainClientContinuesAfterRestart(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	startTurn := func(s *session, prompt string) string {
		t.Helper()
		var res struct {
			SessionID string `json:"sessionId"`
		}
		arg, _ := json.Marshal(map[string]any{"prompt": prompt})
		if err := s.ed.Request(s.ctx, protocol.MethodWorkspaceExecuteCommand, &protocol.ExecuteCommandParams{
			Command: "agent.startTurn", Arguments: []protocol.LSPAny{arg}}, &res); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ed.WaitMessage(s.ctx, func(m protocol.ShowMessageParams) bool { return strings.HasPrefix(m.Message, "Agent: Done") }); err != nil {
			t.Fatal(err)
		}
		return res.SessionID
	}
	m := fakemodel.New(fakemodel.Say("Before the restart."))
	t.Cleanup(m.Close)
	s := startOn(t, m, ws, env, editor.Config{}, editor.Options{})
	first := startTurn(s, "first question")
	s.ed.Disconnect()
	// The transcript of a server that stopped is not trusted to be whole.
	transcript := filepath.Join(state, "agent-ls", "conversations", first+".md")
	if err := os.WriteFile(transcript, []byte("cut short"), 0o600); err != nil {
		t.Fatal(err)
	}

	m2 := fakemodel.New(fakemodel.Say("After the restart."))
	t.Cleanup(m2.Close)
	s2 := startOn(t, m2, ws, env, editor.Config{}, editor.Options{})
	if got := startTurn(s2, "second question"); got != first {
		t.Fatalf("the turn after the restart went to session %s, not %s", got, first)
	}
	body := string(m2.Requests()[0].Body)
	if !strings.Contains(body, "first question") || !strings.Contains(body, "Before the restart.") {
		t.Errorf("the request after the restart lacks the first turn:\n%s", body)
	}
	b, err := os.ReadFile(transcript)
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)
	if strings.Contains(md, "cut short") || !strings.Contains(md, "first question") || !strings.Contains(md, "Before the restart.") || !strings.Contains(md, "After the restart.") {
		t.Errorf("transcript after the restart:\n%s", md)
	}
}

// TestSessionsListLeavesOutSessionsWithoutTurns: a session an editor
// opened and left without a turn is kept (an ACP client may resume it by
// its id), but `agent-ls sessions` counts it instead of listing it,
// unless --all is given; --json lists every one.
func TestSessionsListLeavesOutSessionsWithoutTurns(t *testing.T) {
	state, ws := t.TempDir(), t.TempDir()
	env := []string{"XDG_STATE_HOME=" + state}
	m := fakemodel.New(fakemodel.Say("done"))
	t.Cleanup(m.Close)
	s := startOn(t, m, ws, env, editor.Config{}, editor.Options{})
	var idle, used struct {
		SessionID string `json:"sessionId"`
	}
	if err := s.ed.Request(s.ctx, "agent/newSession", map[string]any{}, &idle); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Request(s.ctx, "agent/newSession", map[string]any{}, &used); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Request(s.ctx, "agent/startTurn", map[string]any{"sessionId": used.SessionID, "prompt": "hi"}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ed.WaitMessage(s.ctx, func(m protocol.ShowMessageParams) bool { return strings.HasPrefix(m.Message, "Agent: Done") }); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Shutdown(s.ctx); err != nil {
		t.Fatal(err)
	}
	s.ed.Exit(s.ctx)
	sessions := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(binary, append([]string{"sessions"}, args...)...)
		cmd.Env = append(os.Environ(), env...)
		cmd.Dir = ws
		out, err := cmd.Output()
		if err != nil {
			t.Fatal(err)
		}
		return string(out)
	}
	if out := sessions(); strings.Contains(out, idle.SessionID) || !strings.Contains(out, used.SessionID) ||
		!strings.Contains(out, "(and 1 session(s) without a turn; --all lists them)") {
		t.Errorf("sessions (%s without a turn, %s with one):\n%s", idle.SessionID, used.SessionID, out)
	}
	for _, args := range [][]string{{"--all"}, {"--json"}} {
		if out := sessions(args...); !strings.Contains(out, idle.SessionID) || !strings.Contains(out, used.SessionID) {
			t.Errorf("sessions %v:\n%s", args, out)
		}
	}
}

// TestExecFailedBeforeAnAnswerKeepsNoSession: a run whose model never
// answered leaves no session behind and names none to resume; a bad
// --resume names agent-ls sessions.
func TestExecFailedBeforeAnAnswerKeepsNoSession(t *testing.T) {
	state := t.TempDir()
	m := fakemodel.New() // no script: every request fails for good
	defer m.Close()
	cmd := execCmd(t, m, "hello")
	cmd.Env = append(cmd.Env, "XDG_STATE_HOME="+state)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if code := exitCode(cmd.Run()); code != 1 {
		t.Fatalf("exit %d, want 1:\n%s", code, stderr.String())
	}
	if strings.Contains(stderr.String(), "--resume") {
		t.Errorf("exec names a session to resume:\n%s", stderr.String())
	}
	list := exec.Command(binary, "sessions", "--json")
	list.Env = append(os.Environ(), "XDG_STATE_HOME="+state)
	out, err := list.Output()
	if err != nil || strings.TrimSpace(string(out)) != "[]" {
		t.Errorf("sessions --json: %v\n%s", err, out)
	}

	resume := execCmd(t, m, "--resume", "s-0123456789abcdef", "go on")
	resume.Env = append(resume.Env, "XDG_STATE_HOME="+state)
	stderr.Reset()
	resume.Stderr = &stderr
	if code := exitCode(resume.Run()); code == 0 || !strings.Contains(stderr.String(), "agent-ls sessions") {
		t.Errorf("exit %d, stderr:\n%s\nwant an error naming agent-ls sessions", code, stderr.String())
	}
}
