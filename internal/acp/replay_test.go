package acp

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestLoadReplaysInOrderAcrossBatches: a session longer than two batches
// is replayed whole, in order, and of its usage only the latest is sent,
// last.
func TestLoadReplaysInOrderAcrossBatches(t *testing.T) {
	// Past two batches in fewer than the 1,024 updates the SDK's client
	// queues before it drops the connection.
	const turns = 320
	long := strings.Repeat("words ", 400)
	var items []json.RawMessage
	add := func(turn string, p event.Payload) {
		b, err := json.Marshal(event.Event{SessionID: "s-7", TurnID: turn, Seq: int64(len(items) + 1), Payload: p})
		if err != nil {
			t.Fatal(err)
		}
		items = append(items, b)
	}
	for i := range turns {
		turn := fmt.Sprintf("s-7-t%d", i+1)
		add(turn, event.TurnStarted{Prompt: fmt.Sprintf("prompt %d %s", i, long)})
		add(turn, event.Message{ItemID: fmt.Sprintf("m%d", i), Text: fmt.Sprintf("answer %d", i)})
		add(turn, event.Usage{ContextTokens: int64(1000 + i), ContextWindow: 200000})
		add(turn, event.TurnCompleted{Status: event.StatusCompleted})
	}
	fa := &fakeAgent{resumed: &agent.ResumedSession{Info: agent.SessionInfo{SessionID: "s-7", Cwd: "/w", Model: "m",
		ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite}, Items: items}}
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.LoadSession(ctx, sdk.LoadSessionRequest{SessionId: "s-7", Cwd: "/w", McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var texts []string
	var usages []*sdk.SessionUsageUpdate
	lastUsage := -1
	for i, u := range rec.updates {
		switch {
		case u.UserMessageChunk != nil && u.UserMessageChunk.Content.Text != nil:
			texts = append(texts, "USER:"+u.UserMessageChunk.Content.Text.Text)
		case u.AgentMessageChunk != nil && u.AgentMessageChunk.Content.Text != nil:
			texts = append(texts, u.AgentMessageChunk.Content.Text.Text)
		case u.UsageUpdate != nil:
			usages, lastUsage = append(usages, u.UsageUpdate), i
		}
	}
	if len(texts) != 2*turns {
		t.Fatalf("%d texts replayed, want %d", len(texts), 2*turns)
	}
	for i := range turns {
		if texts[2*i] != fmt.Sprintf("USER:prompt %d %s", i, long) || texts[2*i+1] != fmt.Sprintf("answer %d", i) {
			t.Fatalf("turn %d replayed as %q, %q", i, texts[2*i], texts[2*i+1])
		}
	}
	if len(usages) != 1 || usages[0].Used != 1000+turns-1 {
		t.Fatalf("usage replayed %d times (%+v), want once, the latest", len(usages), usages)
	}
	for _, u := range rec.updates[lastUsage+1:] {
		if u.UserMessageChunk != nil || u.AgentMessageChunk != nil {
			t.Errorf("the conversation goes on after the usage: %+v", u)
		}
	}
}
