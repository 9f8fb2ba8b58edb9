package acp

import (
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// agentText is the agent's message text of the updates.
func agentText(rec *recorder) string {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var b strings.Builder
	for _, u := range rec.updates {
		if u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil {
			b.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
		if u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil {
			b.WriteString("USER:" + u.UserMessageChunk.Content.Text.Text)
		}
	}
	return b.String()
}

// TestRewindCommand: /rewind N rewinds the N-th turn and says what it
// restored and what it left; a number is required.
func TestRewindCommand(t *testing.T) {
	fa := &fakeAgent{}
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/rewind 2")}})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/rewind 2: %+v, %v", pr, err)
	}
	if len(fa.rewinds) != 1 || fa.rewinds[0] != "2" {
		t.Errorf("rewinds %q", fa.rewinds)
	}
	text := agentText(rec)
	for _, want := range []string{"Rewound 2 turn(s)", "restored a.txt", "conflict, left as it is: b.txt"} {
		if !strings.Contains(text, want) {
			t.Errorf("the message %q does not say %q", text, want)
		}
	}
	if _, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/rewind last")}}); err == nil || !strings.Contains(err.Error(), "turn number") {
		t.Errorf("/rewind last: %v", err)
	}
}

// TestLoadReplaysRewoundTurnsAsNothing: session/load leaves out the
// turns the record marks rewound.
func TestLoadReplaysRewoundTurnsAsNothing(t *testing.T) {
	var items []json.RawMessage
	add := func(turn string, p event.Payload) {
		b, err := json.Marshal(event.Event{SessionID: "s-9", TurnID: turn, Seq: int64(len(items) + 1), Payload: p})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, b)
	}
	add("s-9-t1", event.TurnStarted{Prompt: "kept prompt"})
	add("s-9-t1", event.Message{ItemID: "m1", Text: "kept answer"})
	add("s-9-t1", event.TurnCompleted{Status: event.StatusCompleted})
	add("s-9-t2", event.TurnStarted{Prompt: "rewound prompt"})
	add("s-9-t2", event.Message{ItemID: "m2", Text: "rewound answer"})
	add("s-9-t2", event.TurnCompleted{Status: event.StatusCompleted})
	add("", event.Rewound{TurnIDs: []string{"s-9-t2"}})
	fa := &fakeAgent{resumed: &agent.ResumedSession{Info: agent.SessionInfo{SessionID: "s-9", Cwd: "/w", Model: "m",
		ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite}, Items: items}}
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "s-9", Cwd: "/w", McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	text := agentText(rec)
	if !strings.Contains(text, "kept answer") || !strings.Contains(text, "kept prompt") || strings.Contains(text, "rewound") {
		t.Errorf("replayed %q", text)
	}
}
