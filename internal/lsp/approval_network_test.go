package lsp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
)

func networkRequest() *agent.ApprovalRequest {
	return &agent.ApprovalRequest{
		SessionID: "s1", TurnID: "t1", ApprovalID: "a3", CallID: "call_9", Kind: agent.ApprovalNetwork,
		Host: "registry.npmjs.org", Port: 443, NetCommand: "npm install", Patterns: []string{"registry.npmjs.org", "*.npmjs.org"},
		Reason:  "The command npm install wants to connect to registry.npmjs.org:443.",
		Always:  "connections to registry.npmjs.org:443 for the rest of the session",
		Options: []string{agent.AllowOnce, agent.AllowAlways, agent.AllowPersist, agent.RejectOnce},
	}
}

func TestNetworkApprovalThroughAgentRequestApproval(t *testing.T) {
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
			return map[string]string{"decision": "allowPersist", "pattern": "*.npmjs.org"}, nil
		}
	})
	h.initialize(editor.Options{Events: true, Approvals: true})
	req := networkRequest()
	d, err := h.agent.cfg.Frontend.RequestApproval(h.ctx, req)
	if err != nil || d != agent.AllowPersist || req.Pattern != "*.npmjs.org" {
		t.Fatalf("decision %q with pattern %q, %v", d, req.Pattern, err)
	}
	var p map[string]any
	mu.Lock()
	json.Unmarshal(got, &p)
	mu.Unlock()
	if p["kind"] != "network" || p["host"] != "registry.npmjs.org" || p["port"] != float64(443) || p["command"] != "npm install" || p["callId"] != "call_9" {
		t.Errorf("params %s", got)
	}
	if r, _ := p["reason"].(string); !strings.HasSuffix(r, "\nAllowing for the session covers connections to registry.npmjs.org:443 for the rest of the session.") {
		t.Errorf("reason %q", r)
	}
	if pats, _ := p["patterns"].([]any); len(pats) != 2 || pats[1] != "*.npmjs.org" {
		t.Errorf("patterns %v", p["patterns"])
	}
	if opts, _ := p["options"].([]any); len(opts) != 4 || opts[2] != "allowPersist" {
		t.Errorf("options %v", p["options"])
	}
}

func TestNetworkApprovalThroughShowMessageRequest(t *testing.T) {
	for _, tc := range []struct{ choice, want, pattern string }{
		{"Allow once", agent.AllowOnce, ""},
		{"Allow registry.npmjs.org:443 for this session", agent.AllowAlways, ""},
		{"Always allow registry.npmjs.org", agent.AllowPersist, "registry.npmjs.org"},
		{"Always allow *.npmjs.org", agent.AllowPersist, "*.npmjs.org"},
		{"Deny", agent.RejectOnce, ""},
	} {
		var seen *protocol.ShowMessageRequestParams
		h := newHarness(t, func(_ *Options, c *editor.Config) {
			c.ShowMessageRequest = func(_ context.Context, p *protocol.ShowMessageRequestParams) (*protocol.MessageActionItem, error) {
				seen = p
				return &protocol.MessageActionItem{Title: tc.choice}, nil
			}
		})
		h.initialize(editor.Options{MessageActionItems: true})
		req := networkRequest()
		d, err := h.agent.cfg.Frontend.RequestApproval(h.ctx, req)
		if err != nil || d != tc.want || req.Pattern != tc.pattern {
			t.Errorf("choice %q: decision %q with pattern %q, %v; want %q %q", tc.choice, d, req.Pattern, err, tc.want, tc.pattern)
			continue
		}
		if len(seen.Actions) != 5 || !strings.Contains(seen.Message, "npm install") || !strings.Contains(seen.Message, "registry.npmjs.org:443") {
			t.Errorf("showMessageRequest %+v", seen)
		}
	}
}
