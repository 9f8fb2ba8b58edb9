package acp

import (
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
)

// ApprovePlan: the fake's sessions are never in plan mode.
func (f *fakeAgent) ApprovePlan(string) (agent.Submitted, error) {
	return agent.Submitted{}, agent.ErrNotPlanning
}

// TestPlanOptionAndApprove: the config options carry plan (off), a plan
// value other than on and off is refused, /approve outside plan mode
// answers why in the agent's message and ends the turn, and a
// modeChanged event shows the new mode in the plan option.
func TestPlanOptionAndApprove(t *testing.T) {
	fa := &fakeAgent{}
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	plan := func(opts []sdk.SessionConfigOption) string {
		for _, o := range opts {
			if o.Select != nil && o.Select.Id == "plan" {
				return string(o.Select.CurrentValue)
			}
		}
		return "missing"
	}
	if got := plan(res.ConfigOptions); got != planOff {
		t.Errorf("plan option %q, want off", got)
	}
	_, err = conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: res.SessionId, ConfigId: "plan", Value: "maybe"}})
	if err == nil || !strings.Contains(err.Error(), "want on or off") {
		t.Errorf("plan maybe: %v", err)
	}
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/approve")}})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/approve: %+v %v", pr, err)
	}
	fa.fe.Event(event.Event{SessionID: string(res.SessionId), Seq: 1, Payload: event.ModeChanged{Mode: "plan"}})
	var text, last string
	for deadline := time.Now().Add(10 * time.Second); last != planOn && time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		rec.mu.Lock()
		text, last = "", ""
		for _, u := range rec.updates {
			if u.AgentMessageChunk != nil {
				text += u.AgentMessageChunk.Content.Text.Text
			}
			if u.ConfigOptionUpdate != nil {
				last = plan(u.ConfigOptionUpdate.ConfigOptions)
			}
		}
		rec.mu.Unlock()
	}
	if !strings.Contains(text, "Nothing to approve: the session is not in plan mode") {
		t.Errorf("/approve told %q", text)
	}
	if last != planOn {
		t.Errorf("after modeChanged the plan option is %q, want on", last)
	}
}
