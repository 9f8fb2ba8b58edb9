package agent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/netproxy"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// connectThrough sends CONNECT host:port through a fresh endpoint of the
// session's proxy and returns the proxy's status line and body.
func connectThrough(t *testing.T, s *session, hostPort string) (int, string) {
	t.Helper()
	proxy := s.execConfig("").Proxy
	if proxy == nil {
		t.Fatal("no proxy")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stop := proxy("call_1", "", []string{"curl", "https://" + hostPort}).ServeProxy(ln)
	defer stop()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", hostPort, hostPort)
	resp, err := http.ReadResponse(bufio.NewReader(c), &http.Request{Method: http.MethodConnect})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	return resp.StatusCode, string(body)
}

// TestNetworkRulesFollowTheConfig: the configured hosts are those of the
// session's settings at its turn, so an entry another window wrote, or
// the user added by hand, holds from the next turn on without a
// restart; a denial added so too, even over the session's own "allow".
func TestNetworkRulesFollowTheConfig(t *testing.T) {
	fe := &netFrontend{recorder: newRecorder(), decision: AllowAlways}
	s := netSession(t, fe, nil)
	const host = "pkg.example.invalid:443"
	if code, body := connectThrough(t, s, host); code != http.StatusForbidden || !strings.Contains(body, "no turn is running") {
		t.Fatalf("before the config allows it: %d %q", code, body)
	}
	settle := func(update func(*Defaults)) {
		t.Helper()
		if err := s.mgr.UpdateDefaults(update); err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		err := s.refresh()
		s.mu.Unlock()
		if err != nil {
			t.Fatal(err)
		}
	}
	settle(func(d *Defaults) { d.AllowedDomains = []string{"*.example.invalid"} })
	// Allowed: the proxy resolves the name (which .invalid never does).
	if code, body := connectThrough(t, s, host); code != http.StatusBadGateway || !strings.Contains(body, "cannot resolve") {
		t.Fatalf("after the config allowed it: %d %q", code, body)
	}
	if len(fe.asked) != 0 {
		t.Fatalf("asked about a host the config allows: %+v", fe.asked[0])
	}
	// The session's own "allow" does not outlive a denial in the config.
	withTurn(t, s)
	if code, _ := connectThrough(t, s, "other.invalid:443"); code != http.StatusBadGateway || len(fe.asked) != 1 {
		t.Fatalf("allowed for the session: %d, asked %d times", code, len(fe.asked))
	}
	s.mu.Lock()
	s.running = nil
	s.mu.Unlock()
	settle(func(d *Defaults) { d.DeniedDomains = []string{"other.invalid", "pkg.example.invalid"} })
	for _, hp := range []string{host, "other.invalid:443"} {
		if code, body := connectThrough(t, s, hp); code != http.StatusForbidden || !strings.Contains(body, "denied_domains") {
			t.Errorf("%s after the config denied it: %d %q", hp, code, body)
		}
	}
}

// TestNetworkPersistChosenPattern: allowPersist writes the pattern the
// user chose among those offered; one not offered (wider, or for another
// host) is not written, and the host is allowed for the session only.
func TestNetworkPersistChosenPattern(t *testing.T) {
	for _, c := range []struct{ host, chosen, written string }{
		{"registry.npmjs.org", "*.npmjs.org", "*.npmjs.org"},
		{"registry.npmjs.org", "", "registry.npmjs.org"},
		{"registry.npmjs.org", "*.org", ""},
		{"registry.npmjs.org", "*", ""},
		{"registry.npmjs.org", "evil.example", ""},
		{"www.shop.co.uk", "*.co.uk", ""},
		{"1.2.3.4", "*.2.3.4", ""},
		{"1.2.3.4", "1.2.3.4", "1.2.3.4"},
	} {
		var written []string
		fe := &patternFrontend{recorder: newRecorder(), pattern: c.chosen}
		s := netSession(t, fe, func(o *Options) {
			o.PersistAllowedDomain = func(e string) error { written = append(written, e); return nil }
		})
		withTurn(t, s)
		a := s.decideNetwork(context.Background(), netproxy.Question{Host: c.host, Port: 443})
		if !a.Allow || !a.Remember {
			t.Errorf("%s with %q: %+v, want allowed for the session", c.host, c.chosen, a)
		}
		if got := strings.Join(written, " "); got != c.written {
			t.Errorf("%s with %q: wrote %q, want %q", c.host, c.chosen, got, c.written)
		}
		said := false
		for _, ev := range fe.recorder.events {
			if m, ok := ev.Payload.(event.Message); ok && strings.Contains(m.Text, "not one of the entries offered") {
				said = true
			}
		}
		if said != (c.written == "") {
			t.Errorf("%s with %q: told the pattern was refused: %v", c.host, c.chosen, said)
		}
	}
}

// patternFrontend answers allowPersist with a chosen pattern.
type patternFrontend struct {
	*recorder
	pattern string
}

func (f *patternFrontend) RequestApproval(_ context.Context, req *ApprovalRequest) (string, error) {
	req.Pattern = f.pattern
	return AllowPersist, nil
}

// TestSessionNetworkNarrowsOnly: a session's own network narrows the
// configured one and never widens it.
func TestSessionNetworkNarrowsOnly(t *testing.T) {
	for _, c := range []struct{ config, chosen, want policy.NetworkMode }{
		{policy.NetworkOn, policy.NetworkAsk, policy.NetworkAsk},
		{policy.NetworkOn, policy.NetworkOff, policy.NetworkOff},
		{policy.NetworkAsk, policy.NetworkOn, policy.NetworkAsk},
		{policy.NetworkOff, policy.NetworkOn, policy.NetworkOff},
		{policy.NetworkOff, policy.NetworkAsk, policy.NetworkOff},
		{policy.NetworkAsk, "", policy.NetworkAsk},
	} {
		mgr := managerWith(t, &scriptedModel{}, newRecorder(), func(o *Options) {
			o.NetworkMode, o.NetworkAccess = c.config, c.config == policy.NetworkOn
		})
		info, err := mgr.NewSession(SessionOptions{Network: c.chosen})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := mgr.session(info.SessionID)
		if info.Network != c.want || s.cfg.NetworkMode != c.want || s.cfg.NetworkAccess != (c.want == policy.NetworkOn) ||
			(s.execConfig("").Proxy != nil) != (c.want == policy.NetworkAsk) {
			t.Errorf("config %s, chosen %q: %s (cfg %s, access %v), want %s", c.config, c.chosen, info.Network, s.cfg.NetworkMode, s.cfg.NetworkAccess, c.want)
		}
	}
	mgr := managerWith(t, &scriptedModel{}, newRecorder(), func(o *Options) {})
	if _, err := mgr.NewSession(SessionOptions{Network: "wide"}); err == nil {
		t.Error("an unknown network mode was taken")
	}
}

// TestSessionNetworkKeptWithTheRecord: the network a session chose goes
// with its record (its JSON too), and a restored session has it again;
// one a later agent-ls wrote that this one does not know is the
// narrowest.
func TestSessionNetworkKeptWithTheRecord(t *testing.T) {
	set := func(o *Options) { o.NetworkMode, o.NetworkAccess = policy.NetworkOn, true }
	mgr := managerWith(t, &scriptedModel{}, newRecorder(), set)
	info, err := mgr.NewSession(SessionOptions{Network: policy.NetworkAsk})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := mgr.Record(info.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(rec.Info)
	var back SessionInfo
	if err := json.Unmarshal(b, &back); err != nil || back.NetworkChoice != policy.NetworkAsk {
		t.Fatalf("the record's info %s", b)
	}
	for choice, want := range map[policy.NetworkMode]policy.NetworkMode{policy.NetworkAsk: policy.NetworkAsk, "lan": policy.NetworkOff, "": policy.NetworkOn} {
		rec.Info.NetworkChoice = choice
		restored, err := managerWith(t, &scriptedModel{}, newRecorder(), set).Restore(rec)
		if err != nil || restored.Network != want {
			t.Errorf("restored with %q: %s %v, want %s", choice, restored.Network, err, want)
		}
	}
}
