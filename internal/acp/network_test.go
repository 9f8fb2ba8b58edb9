package acp

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// managedAgent is the fake agent whose sessions are the real manager's,
// so that their settings are settled as agent-ls settles them.
type managedAgent struct {
	*fakeAgent
	mgr *agent.Manager
}

func (a managedAgent) NewSession(o agent.SessionOptions) (agent.SessionInfo, error) {
	return a.mgr.NewSession(o)
}

func (a managedAgent) UpdateSession(id string, f func(*agent.SessionOptions)) (agent.SessionInfo, error) {
	return a.mgr.UpdateSession(id, f)
}

func networkOf(t *testing.T, opts []sdk.SessionConfigOption) (cur string, values []string) {
	t.Helper()
	for _, o := range opts {
		if o.Select != nil && o.Select.Id == "network" {
			for _, v := range *o.Select.Options.Ungrouped {
				values = append(values, string(v.Value))
			}
			return string(o.Select.CurrentValue), values
		}
	}
	t.Fatal("no network config option")
	return "", nil
}

// TestNetworkConfigOption: the config option network offers the
// configuration's network and the narrower ones; a client narrows it
// (on, ask, off) and may come back up to the configuration's, never
// beyond.
func TestNetworkConfigOption(t *testing.T) {
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	var mgr *agent.Manager
	conn, _, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) {
		mgr, err = agent.NewManager(agent.Options{Defaults: agent.Defaults{ModelName: "m", SandboxMode: policy.WorkspaceWrite, NetworkMode: policy.NetworkAsk},
			ClientFor: func(agent.SessionInfo) (model.Client, error) { return nil, nil }, Frontend: c.Frontend, Tools: reg, Cwd: t.TempDir()})
		if err != nil {
			return nil, err
		}
		t.Cleanup(mgr.Close)
		return managedAgent{&fakeAgent{fe: c.Frontend}, mgr}, nil
	}})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: t.TempDir(), McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if cur, values := networkOf(t, res.ConfigOptions); cur != "ask" || strings.Join(values, " ") != "off ask" {
		t.Fatalf("network %q of %q, want ask of off and ask", cur, values)
	}
	set := func(v string) ([]sdk.SessionConfigOption, error) {
		r, err := conn.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
			SessionId: res.SessionId, ConfigId: "network", Value: sdk.SessionConfigValueId(v)}})
		return r.ConfigOptions, err
	}
	if _, err := set("on"); err == nil || !strings.Contains(err.Error(), "can only be narrowed") {
		t.Errorf("network on over ask: %v", err)
	}
	if _, err := set("wide"); err == nil || !strings.Contains(err.Error(), "unknown value") {
		t.Errorf("network wide: %v", err)
	}
	opts, err := set("off")
	if err != nil {
		t.Fatal(err)
	}
	if cur, _ := networkOf(t, opts); cur != "off" {
		t.Errorf("after off: %q", cur)
	}
	// The agent's session has no network now.
	info, err := mgr.UpdateSession(string(res.SessionId), func(*agent.SessionOptions) {})
	if err != nil || info.Network != policy.NetworkOff {
		t.Errorf("the agent's session: %s %v", info.Network, err)
	}
	opts, err = set("ask")
	if cur, _ := networkOf(t, opts); err != nil || cur != "ask" {
		t.Errorf("back to ask: %q %v", cur, err)
	}
}

// TestNetworkPersistOverElicitation: a client that shows forms is asked,
// after it allowed a host for the session, whether to write one of the
// offered entries to the config; only an entry offered is taken, and
// anything else leaves the host allowed for the session. A client
// without forms is not asked.
func TestNetworkPersistOverElicitation(t *testing.T) {
	netReq := func() *agent.ApprovalRequest {
		return &agent.ApprovalRequest{SessionID: "s-1", ApprovalID: "a1", CallID: "call_2", Kind: agent.ApprovalNetwork, Host: "registry.npmjs.org", Port: 443,
			NetCommand: "npm install", Patterns: []string{"registry.npmjs.org", "*.npmjs.org"}, Reason: "The command npm install wants to connect to registry.npmjs.org:443.",
			Options: []string{agent.AllowOnce, agent.AllowAlways, agent.AllowPersist, agent.RejectOnce}}
	}
	c, e, sid := elicitConn(t, `{"elicitation":{"form":{}}}`)
	fe := e.(agent.Frontend)
	for _, tc := range []struct {
		outcome, answer string // "" answer: no form expected
		want, pattern   string
	}{
		{`{"outcome":"selected","optionId":"allow_always"}`, `{"action":"accept","content":{"remember":"*.npmjs.org"}}`, agent.AllowPersist, "*.npmjs.org"},
		{`{"outcome":"selected","optionId":"allow_always"}`, `{"action":"accept","content":{"remember":"registry.npmjs.org"}}`, agent.AllowPersist, "registry.npmjs.org"},
		{`{"outcome":"selected","optionId":"allow_always"}`, `{"action":"accept","content":{"remember":"session"}}`, agent.AllowAlways, ""},
		{`{"outcome":"selected","optionId":"allow_always"}`, `{"action":"accept","content":{"remember":"*.org"}}`, agent.AllowAlways, ""},
		{`{"outcome":"selected","optionId":"allow_always"}`, `{"action":"decline"}`, agent.AllowAlways, ""},
		{`{"outcome":"selected","optionId":"allow_once"}`, "", agent.AllowOnce, ""},
		{`{"outcome":"selected","optionId":"reject_once"}`, "", agent.RejectOnce, ""},
	} {
		req := netReq()
		done := make(chan string, 1)
		go func() { d, _ := fe.RequestApproval(context.Background(), req); done <- d }()
		m := nextRequest(t, c)
		if m["method"] != "session/request_permission" {
			t.Fatalf("first %v", m)
		}
		id, _ := json.Marshal(m["id"])
		c.send(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"outcome":`+tc.outcome+`}}`)
		if tc.answer != "" {
			m = nextRequest(t, c)
			p, _ := m["params"].(map[string]any)
			b, _ := json.Marshal(p)
			if m["method"] != "elicitation/create" || p["sessionId"] != sid || p["toolCallId"] != "call_2" ||
				!strings.Contains(string(b), `{"const":"*.npmjs.org","title":"Always allow *.npmjs.org (user config)"}`) ||
				!strings.Contains(string(b), `{"const":"session","title":"Only for this session"}`) {
				t.Fatalf("form %s", b)
			}
			id, _ = json.Marshal(m["id"])
			c.send(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":`+tc.answer+`}`)
		}
		if d := <-done; d != tc.want || req.Pattern != tc.pattern {
			t.Errorf("%s then %s: %s %q, want %s %q", tc.outcome, tc.answer, d, req.Pattern, tc.want, tc.pattern)
		}
	}

	// Without forms: "allow always" is for the session, nothing more asked.
	c2, e2, _ := elicitConn(t, `{}`)
	req := netReq()
	done := make(chan string, 1)
	go func() { d, _ := e2.(agent.Frontend).RequestApproval(context.Background(), req); done <- d }()
	m := nextRequest(t, c2)
	id, _ := json.Marshal(m["id"])
	c2.send(t, `{"jsonrpc":"2.0","id":`+string(id)+`,"result":{"outcome":{"outcome":"selected","optionId":"allow_always"}}}`)
	if d := <-done; d != agent.AllowAlways || req.Pattern != "" {
		t.Errorf("without forms: %s %q", d, req.Pattern)
	}
}

// nextRequest is the next message from the server that is not a
// session/update.
func nextRequest(t *testing.T, c *rawConn) map[string]any {
	t.Helper()
	for {
		var m map[string]any
		if err := json.Unmarshal([]byte(c.next(t)), &m); err != nil {
			t.Fatal(err)
		}
		if m["method"] != "session/update" {
			return m
		}
	}
}
