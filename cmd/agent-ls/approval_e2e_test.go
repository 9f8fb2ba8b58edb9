package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

func shellCall(id string, argv ...string) fakemodel.Item {
	args, _ := json.Marshal(map[string]any{"command": argv})
	return fakemodel.FunctionCall(id, "shell", string(args))
}

func TestApprovalAllowAlwaysThroughAgentRequestApproval(t *testing.T) {
	var mu sync.Mutex
	var asked []map[string]any
	cfg := editor.Config{Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
		var p map[string]any
		json.Unmarshal(params, &p)
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		return map[string]string{"decision": "allowAlways"}, nil
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true, Approvals: true,
		InitializationOptions: map[string]any{"approvalPolicy": "untrusted"}},
		fakemodel.Answer(shellCall("c1", "touch", "made-1")),
		fakemodel.Answer(shellCall("c2", "touch", "made-1")),
		fakemodel.Answer(shellCall("c3", "ls")),
		fakemodel.Say("done"),
	)
	turn := s.startTurn(map[string]any{"prompt": "make a file"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "made-1")); err != nil {
		t.Errorf("the approved command did not run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 {
		t.Fatalf("asked %d times, want once (allowAlways covers the repeat; ls is known safe)", len(asked))
	}
	if asked[0]["kind"] != "exec" || asked[0]["approvalId"] == "" || !strings.HasPrefix(asked[0]["cwd"].(string), "file://") {
		t.Errorf("request %v", asked[0])
	}
	var decisions []string
	for _, ev := range s.events(turn.TurnID) {
		if ev.Type == "approval" {
			decisions = append(decisions, ev.Decision)
		}
	}
	if strings.Join(decisions, ",") != "allowAlways,autoAllow,autoAllow" {
		t.Errorf("approval events %v", decisions)
	}
}

func TestRejectedCommandGoesBackToTheModel(t *testing.T) {
	cfg := editor.Config{ShowMessageChoice: "Reject"}
	s := startWith(t, nil, cfg, editor.Options{Events: true, MessageActionItems: true,
		InitializationOptions: map[string]any{"approvalPolicy": "untrusted"}},
		fakemodel.Answer(shellCall("c1", "touch", "nope")),
		fakemodel.Say("ok, I will not"),
	)
	turn := s.startTurn(map[string]any{"prompt": "make a file"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "nope")); err == nil {
		t.Error("a rejected command ran")
	}
	var result editor.Event
	for _, ev := range s.events(turn.TurnID) {
		if ev.Type == "toolResult" {
			result = ev
		}
	}
	if result.Status != "rejected" || !strings.Contains(result.Output, "rejected") {
		t.Errorf("toolResult %+v", result)
	}
	if reqs := s.model.Requests(); len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), "rejected: the user declined") {
		t.Error("the model was not told about the rejection")
	}
}

func TestUnansweredApprovalEndsWithInterrupt(t *testing.T) {
	cfg := editor.Config{NeverAnswer: []string{"window/showMessageRequest"}}
	s := startWith(t, nil, cfg, editor.Options{Events: true,
		InitializationOptions: map[string]any{"approvalPolicy": "untrusted"}},
		fakemodel.Answer(shellCall("c1", "touch", "never")),
		fakemodel.Say("next turn"),
	)
	turn := s.startTurn(map[string]any{"prompt": "make a file"})
	if _, err := s.ed.WaitEvent(s.ctx, func(ev editor.Event) bool { return ev.Type == "toolCall" }); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Request(s.ctx, "agent/interrupt", map[string]any{"sessionId": turn.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	if done := s.wait(turn.TurnID); done.Status != "interrupted" {
		t.Fatalf("turn %+v", done)
	}
	next := s.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "again"})
	if done := s.wait(next.TurnID); done.Status != "completed" {
		t.Fatalf("next turn %+v", done)
	}
}

func TestInterruptDuringToolCallKillsTheCommand(t *testing.T) {
	mk := lingerMarker()
	script := "bash -c 'exec -a " + mk + " sleep 60' & echo started; wait"
	args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-c", script}, "timeout_ms": 60000})
	s := start(t, nil,
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", string(args))),
		fakemodel.Say("after"),
	)
	turn := s.startTurn(map[string]any{"prompt": "wait"})
	if _, err := s.ed.WaitEvent(s.ctx, func(ev editor.Event) bool { return ev.Type == "execOutput" && strings.Contains(ev.Chunk, "started") }); err != nil {
		t.Fatal(err)
	}
	if err := s.ed.Request(s.ctx, "agent/interrupt", map[string]any{"sessionId": turn.SessionID}, nil); err != nil {
		t.Fatal(err)
	}
	if done := s.wait(turn.TurnID); done.Status != "interrupted" {
		t.Fatalf("turn %+v", done)
	}
	// The sleep runs in the command's own PID namespace: found by its
	// marker, not by the pid the shell saw.
	checkNoLingerers(t, mk)
	next := s.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "again"})
	if done := s.wait(next.TurnID); done.Status != "completed" {
		t.Fatalf("next turn %+v", done)
	}
}

func TestOnFailureOffersToRerunOutsideTheSandbox(t *testing.T) {
	var mu sync.Mutex
	var asked []string
	cfg := editor.Config{ShowMessageRequest: func(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
		mu.Lock()
		asked = append(asked, p.Message)
		mu.Unlock()
		return &protocol.MessageActionItem{Title: "Allow once"}, nil
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true,
		InitializationOptions: map[string]any{"approvalPolicy": "on-failure", "sandboxMode": "read-only"}},
		fakemodel.Answer(shellCall("c1", "touch", "outside-the-sandbox")),
		fakemodel.Say("done"),
	)
	turn := s.startTurn(map[string]any{"prompt": "make a file"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 1 || !strings.Contains(asked[0], "sandbox blocked this command") {
		t.Fatalf("questions %q", asked)
	}
	if _, err := os.Stat(filepath.Join(s.dir, "outside-the-sandbox")); err != nil {
		t.Errorf("the rerun without the sandbox did not happen: %v", err)
	}
}

func escalatedCall(id string, argv ...string) fakemodel.Item {
	args, _ := json.Marshal(map[string]any{"command": argv, "sandbox_permissions": "require_escalated", "justification": "needs it"})
	return fakemodel.FunctionCall(id, "shell", string(args))
}

// An "allow always" covers the command the editor was asked about and
// nothing longer: after the user allowed `find . -maxdepth 0` outside the
// sandbox always, the model's `find . -maxdepth 0 -exec touch OUTSIDE ;`
// is asked about again (and rejected here), not run unsandboxed.
func TestApprovalAllowAlwaysCoversOnlyTheExactCommand(t *testing.T) {
	escaped := filepath.Join(outsideDir(t), "escaped")
	var mu sync.Mutex
	var asked []map[string]any
	cfg := editor.Config{Request: func(_ context.Context, method string, params json.RawMessage) (any, error) {
		var p map[string]any
		json.Unmarshal(params, &p)
		mu.Lock()
		defer mu.Unlock()
		asked = append(asked, p)
		if len(asked) == 1 {
			return map[string]string{"decision": "allowAlways"}, nil
		}
		return map[string]string{"decision": "rejectOnce"}, nil
	}}
	s := startWith(t, nil, cfg, editor.Options{Events: true, Approvals: true,
		InitializationOptions: map[string]any{"approvalPolicy": "on-request"}},
		fakemodel.Answer(escalatedCall("c1", "find", ".", "-maxdepth", "0")),
		fakemodel.Answer(escalatedCall("c2", "find", ".", "-maxdepth", "0")),
		fakemodel.Answer(escalatedCall("c3", "find", ".", "-maxdepth", "0", "-exec", "touch", escaped, ";")),
		fakemodel.Say("done"),
	)
	turn := s.startTurn(map[string]any{"prompt": "look around"})
	if done := s.wait(turn.TurnID); done.Status != "completed" {
		t.Fatalf("turn %+v", done)
	}
	if _, err := os.Stat(escaped); err == nil {
		t.Error("the longer command ran outside the sandbox on the strength of an \"always\" for its prefix")
	}
	mu.Lock()
	defer mu.Unlock()
	if len(asked) != 2 {
		t.Fatalf("asked %d times, want twice (the command, then the longer one)", len(asked))
	}
	if cmd, _ := asked[1]["command"].([]any); len(cmd) != 8 {
		t.Errorf("the second question is about %v", asked[1]["command"])
	}
	if r, _ := asked[0]["reason"].(string); !strings.Contains(r, `"Always" (allow or reject) covers this exact command`) || !strings.Contains(r, "outside the sandbox") {
		t.Errorf("the question does not say what \"always\" covers: %q", r)
	}
	var decisions []string
	for _, ev := range s.events(turn.TurnID) {
		if ev.Type == "approval" {
			decisions = append(decisions, ev.Decision)
		}
	}
	if strings.Join(decisions, ",") != "allowAlways,autoAllow,rejectOnce" {
		t.Errorf("approval events %v", decisions)
	}
}
