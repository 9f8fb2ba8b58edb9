package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

func execRequest() *agent.ApprovalRequest {
	return &agent.ApprovalRequest{
		SessionID: "s1", TurnID: "t1", ApprovalID: "a1", Kind: agent.ApprovalExec,
		Command: []string{"go", "test", "./..."}, Cwd: "/repo", Reason: "The policy asks.",
		Always:    "this exact command in this folder, run in the sandbox, for the rest of the session",
		Arguments: json.RawMessage(`{"command":["go","test","./..."]}`),
		Options:   []string{agent.AllowOnce, agent.AllowAlways, agent.RejectOnce, agent.RejectAlways},
	}
}

func TestApprovalThroughAgentRequestApproval(t *testing.T) {
	var mu sync.Mutex
	var got json.RawMessage
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.Request = func(_ context.Context, method string, params json.RawMessage) (any, error) {
			if method != methodRequestApproval {
				return nil, nil
			}
			mu.Lock()
			got = append(json.RawMessage(nil), params...)
			mu.Unlock()
			return map[string]string{"decision": "allowAlways"}, nil
		}
	})
	h.initialize(editor.Options{Events: true, Approvals: true})
	// The event queued before the request reaches the editor first.
	h.agent.emit("s1", "t1", event.ToolCall{CallID: "c1", Tool: "shell", Kind: event.KindExecute, Title: "go test", Arguments: json.RawMessage(`{}`)})
	d, err := h.agent.cfg.Frontend.RequestApproval(h.ctx, execRequest())
	if err != nil || d != agent.AllowAlways {
		t.Fatalf("decision %q, %v", d, err)
	}
	if len(h.ed.Events()) != 1 {
		t.Errorf("the toolCall event did not arrive before the approval request")
	}
	var p map[string]any
	mu.Lock()
	json.Unmarshal(got, &p)
	mu.Unlock()
	if p["approvalId"] != "a1" || p["kind"] != "exec" || p["cwd"] != "file:///repo" ||
		p["reason"] != "The policy asks.\n\"Always\" (allow or reject) covers this exact command in this folder, run in the sandbox, for the rest of the session." {
		t.Errorf("params %s", got)
	}
	if cmd, _ := p["command"].([]any); len(cmd) != 3 {
		t.Errorf("command %v", p["command"])
	}
	if args, _ := p["arguments"].(map[string]any); args["command"] == nil {
		t.Errorf("arguments %v", p["arguments"])
	}
	if opts, _ := p["options"].([]any); len(opts) != 4 {
		t.Errorf("options %v", p["options"])
	}
}

func TestApprovalThroughShowMessageRequest(t *testing.T) {
	for _, tc := range []struct {
		choice string
		want   string
	}{
		{"Allow once", agent.AllowOnce},
		{"Allow always", agent.AllowAlways},
		{"Reject", agent.RejectOnce},
		{"Abort turn", agent.Abort},
		{"", agent.RejectOnce}, // dismissed: null
	} {
		var seen *protocol.ShowMessageRequestParams
		h := newHarness(t, func(_ *Options, c *editor.Config) {
			c.ShowMessageRequest = func(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
				seen = p
				if tc.choice == "" {
					return nil, nil
				}
				return &protocol.MessageActionItem{Title: tc.choice}, nil
			}
		})
		h.initialize(editor.Options{MessageActionItems: true})
		d, err := h.agent.cfg.Frontend.RequestApproval(h.ctx, execRequest())
		if err != nil || d != tc.want {
			t.Errorf("choice %q: decision %q, %v; want %q", tc.choice, d, err, tc.want)
			continue
		}
		if seen.Type != protocol.MessageTypeWarning || !strings.Contains(seen.Message, "go test ./...") ||
			!strings.Contains(seen.Message, "in /repo") || !strings.Contains(seen.Message, "The policy asks.") || len(seen.Actions) != 4 ||
			!strings.Contains(seen.Message, "\n\"Allow always\" covers this exact command in this folder, run in the sandbox, for the rest of the session.") {
			t.Errorf("showMessageRequest %+v", seen)
		}
	}
}

func TestApprovalNeverAnsweredEndsWithTheTurn(t *testing.T) {
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.NeverAnswer = []string{"window/showMessageRequest"}
	})
	h.initialize(editor.Options{})
	ctx, cancel := context.WithCancel(h.ctx)
	done := make(chan error, 1)
	go func() {
		_, err := h.agent.cfg.Frontend.RequestApproval(ctx, execRequest())
		done <- err
	}()
	cancel() // the turn is interrupted
	if err := <-done; err == nil {
		t.Fatal("an unanswered approval returned no error after the interrupt")
	}
}

func TestApprovalMessageForPatch(t *testing.T) {
	msg := approvalMessage(&agent.ApprovalRequest{Kind: agent.ApprovalPatch, Files: []string{"/r/a.go", "/r/b.go"},
		Diff: "--- a/a.go\n+++ b/a.go\n@@ -1 +1,2 @@\n-x\n+y\n+z\n", Additions: 2, Deletions: 1, Reason: "Outside the project."})
	for _, want := range []string{"change 2 file(s)", "/r/a.go", "(+2 -1 lines)", "Outside the project."} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	// The box shows the diff's first lines, cut to a width, and says how
	// much was left out.
	var diff strings.Builder
	diff.WriteString("--- a/a.go\n+++ b/a.go\n@@ -1,20 +1,20 @@\n-" + strings.Repeat("é", 200) + "\n")
	for i := range 20 {
		fmt.Fprintf(&diff, "+line %d\n", i)
	}
	msg = approvalMessage(&agent.ApprovalRequest{Kind: agent.ApprovalPatch, Files: []string{"/r/a.go"}, Diff: diff.String(), Additions: 20, Deletions: 1})
	want := "agent-ls wants to change 1 file(s):\n  /r/a.go\n(+20 -1 lines)\n@@ -1,20 +1,20 @@\n-" + strings.Repeat("é", 118) + "…"
	for i := range 10 {
		want += fmt.Sprintf("\n+line %d", i)
	}
	want += "\n… 10 more diff lines"
	if msg != want {
		t.Errorf("message\n%s\nwant\n%s", msg, want)
	}
}

// TestApprovalForAnMCPTool: the request names the tool, its server and
// its arguments; the plain message says the same.
func TestApprovalForAnMCPTool(t *testing.T) {
	req := &agent.ApprovalRequest{SessionID: "s1", TurnID: "t1", ApprovalID: "a2", Kind: agent.ApprovalTool, Tool: "create_issue", Server: "github",
		Arguments: json.RawMessage(`{"title":"crash on start"}`), Reason: "Not marked read-only.", Options: []string{agent.AllowOnce, agent.RejectOnce}}
	var mu sync.Mutex
	var got map[string]any
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.Request = func(_ context.Context, method string, params json.RawMessage) (any, error) {
			mu.Lock()
			json.Unmarshal(params, &got)
			mu.Unlock()
			return map[string]string{"decision": "allowOnce"}, nil
		}
	})
	h.initialize(editor.Options{Events: true, Approvals: true})
	if d, err := h.agent.cfg.Frontend.RequestApproval(h.ctx, req); err != nil || d != agent.AllowOnce {
		t.Fatalf("decision %q, %v", d, err)
	}
	mu.Lock()
	if got["kind"] != "tool" || got["tool"] != "create_issue" || got["server"] != "github" {
		t.Errorf("params %v", got)
	}
	if args, _ := got["arguments"].(map[string]any); args["title"] != "crash on start" {
		t.Errorf("arguments %v", got["arguments"])
	}
	mu.Unlock()
	msg := approvalMessage(req)
	if want := "agent-ls wants to call create_issue of the MCP server github\nwith {\"title\":\"crash on start\"}\nNot marked read-only."; msg != want {
		t.Errorf("message %q, want %q", msg, want)
	}
}
