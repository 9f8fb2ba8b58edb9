package agent

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/netproxy"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// netFrontend answers network questions with decision and records them.
type netFrontend struct {
	*recorder
	mu       sync.Mutex
	asked    []*ApprovalRequest
	decision string
}

func (f *netFrontend) RequestApproval(_ context.Context, req *ApprovalRequest) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, req)
	return f.decision, nil
}

func netSession(t *testing.T, fe Frontend, set func(*Options)) *session {
	t.Helper()
	mgr := managerWith(t, &scriptedModel{}, fe, func(o *Options) {
		o.NetworkMode = policy.NetworkAsk
		if set != nil {
			set(o)
		}
	})
	info, err := mgr.NewSession(SessionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := mgr.session(info.SessionID)
	return s
}

// withTurn makes s look as if a turn ran, for the proxy's questions.
func withTurn(tb testing.TB, s *session) *turn {
	t := &turn{s: s, id: "t1", done: make(chan struct{})}
	s.mu.Lock()
	s.running = t
	s.mu.Unlock()
	// Registered after the manager's: runs before its Close.
	tb.Cleanup(func() {
		s.mu.Lock()
		s.running = nil
		s.mu.Unlock()
	})
	return t
}

func TestNetworkQuestionReachesTheFrontend(t *testing.T) {
	var persisted []string
	fe := &netFrontend{recorder: newRecorder(), decision: AllowPersist}
	s := netSession(t, fe, func(o *Options) {
		o.PersistAllowedDomain = func(e string) error { persisted = append(persisted, e); return nil }
	})
	if s.execConfig("").Proxy == nil {
		t.Fatal("network ask: no proxy for the session's commands")
	}
	withTurn(t, s)
	q := netproxy.Question{Host: "registry.npmjs.org", Port: 443, Client: netproxy.Client{Command: "npm install", CallID: "call_7"}}
	a := s.decideNetwork(context.Background(), q)
	if !a.Allow || !a.Remember {
		t.Errorf("allowPersist: %+v, want allowed for the session", a)
	}
	if len(persisted) != 1 || persisted[0] != "registry.npmjs.org" {
		t.Errorf("persisted %q", persisted)
	}
	req := fe.asked[0]
	if req.Kind != ApprovalNetwork || req.Host != "registry.npmjs.org" || req.Port != 443 || req.CallID != "call_7" || req.NetCommand != "npm install" ||
		strings.Join(req.Patterns, " ") != "registry.npmjs.org *.npmjs.org" || strings.Join(req.Options, " ") != "allowOnce allowAlways allowPersist rejectOnce" {
		t.Errorf("request %+v", req)
	}
	local := netproxy.Question{Host: "db.test", Port: 5432, Local: true, Addrs: []netip.Addr{netip.MustParseAddr("10.0.0.5")}}
	fe.decision = RejectOnce
	if a := s.decideNetwork(context.Background(), local); a.Allow {
		t.Error("a rejected local service was allowed")
	}
	if r := fe.asked[1]; !strings.Contains(r.Reason, "on this machine or its local network") || strings.Join(r.Patterns, " ") != "db.test:5432" {
		t.Errorf("local question: %q %q", r.Reason, r.Patterns)
	}
	var approvals int
	for _, ev := range fe.recorder.events {
		if ap, ok := ev.Payload.(event.Approval); ok && ap.Kind == "network" {
			approvals++
		}
	}
	if approvals != 2 {
		t.Errorf("%d approval events of kind network, want 2", approvals)
	}
}

func TestNetworkPersistFailureIsForTheSession(t *testing.T) {
	fe := &netFrontend{recorder: newRecorder(), decision: AllowPersist}
	s := netSession(t, fe, func(o *Options) {
		o.PersistAllowedDomain = func(string) error { return errors.New("read-only file system") }
	})
	withTurn(t, s)
	if a := s.decideNetwork(context.Background(), netproxy.Question{Host: "pypi.org", Port: 443}); !a.Allow || !a.Remember {
		t.Errorf("%+v, want allowed for the session", a)
	}
	said := false
	for _, ev := range fe.recorder.events {
		if m, ok := ev.Payload.(event.Message); ok && strings.Contains(m.Text, "allowed for this session only") {
			said = true
		}
	}
	if !said {
		t.Error("nothing said that the host is allowed for this session only")
	}
}

func TestNetworkNobodyAsked(t *testing.T) {
	for name, set := range map[string]func(*Options){
		"unattended": func(o *Options) { o.Unattended = true },
		"never":      func(o *Options) { o.ApprovalPolicy = policy.Never },
	} {
		t.Run(name, func(t *testing.T) {
			fe := &netFrontend{recorder: newRecorder(), decision: AllowOnce}
			s := netSession(t, fe, set)
			withTurn(t, s)
			a := s.decideNetwork(context.Background(), netproxy.Question{Host: "example.org", Port: 443})
			if a.Allow || !strings.Contains(a.Reason, "allowed_domains") || !strings.Contains(a.Reason, `"example.org"`) {
				t.Errorf("%+v, want denied naming allowed_domains and the entry", a)
			}
			if len(fe.asked) != 0 {
				t.Error("asked although nobody may be")
			}
		})
	}
	fe := &netFrontend{recorder: newRecorder(), decision: AllowOnce}
	s := netSession(t, fe, nil)
	if a := s.decideNetwork(context.Background(), netproxy.Question{Host: "example.org", Port: 443}); a.Allow || !strings.Contains(a.Reason, "no turn is running") {
		t.Errorf("between turns: %+v", a)
	}
}

func TestNetworkModeGivesTheProxy(t *testing.T) {
	for _, c := range []struct {
		mode    policy.NetworkMode
		sandbox policy.SandboxMode
		proxy   bool
	}{
		{policy.NetworkAsk, policy.WorkspaceWrite, true},
		{policy.NetworkOff, policy.WorkspaceWrite, false},
		{policy.NetworkOn, policy.WorkspaceWrite, false},
		{policy.NetworkAsk, policy.ReadOnly, false},
	} {
		s := netSession(t, newRecorder(), func(o *Options) { o.NetworkMode, o.SandboxMode = c.mode, c.sandbox })
		if got := s.execConfig("").Proxy != nil; got != c.proxy {
			t.Errorf("network %s, sandbox %s: proxy %v, want %v", c.mode, c.sandbox, got, c.proxy)
		}
	}
}
