package agent

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/netproxy"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/textcut"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// The network of a session under network = "ask": one proxy per session
// (netproxy), which each sandboxed workspace-write command reaches
// through an endpoint of its own in the session's loopback network. The
// proxy asks the session about every host its rules do not decide: the
// running turn's frontend asks the user (approval kind "network"); under
// approval policy "never", in unattended runs and between turns nobody
// is asked and the host is denied. Every connection's end is a
// networkAccess event.

// Approval kind and decision of the network question.
const (
	// ApprovalNetwork: a command's first connection to a host (Host,
	// Port, Command, Patterns).
	ApprovalNetwork ApprovalKind = "network"
	// AllowPersist allows the host and writes it to the user's config
	// (allowed_domains), for this and every later session.
	AllowPersist = "allowPersist"
)

// sessionNet is a session's proxy, made at the first command that needs
// it.
type sessionNet struct {
	mu      sync.Mutex
	proxy   *netproxy.Proxy
	domains [2][]string // allowed and denied, as the proxy's rules have them
}

// proxyFor returns the tools' hook that gives each command its proxy
// endpoint, or nil when the session's commands do not use the proxy.
func (s *session) proxyFor() func(callID, terminalID string, argv []string) tools.ProxyServer {
	if s.cfg.NetworkMode.Effective(s.info.SandboxMode) != policy.NetworkAsk {
		return nil
	}
	s.net.mu.Lock()
	defer s.net.mu.Unlock()
	// The configured hosts are those of the session's settings, which
	// each turn takes from the config as it is then (an "always" written
	// by another window, a hand edit).
	domains := [2][]string{s.cfg.AllowedDomains, s.cfg.DeniedDomains}
	if s.net.proxy == nil || !slices.Equal(domains[0], s.net.domains[0]) || !slices.Equal(domains[1], s.net.domains[1]) {
		rules, err := netproxy.ParseRules(domains[0], domains[1])
		if err != nil {
			s.mgr.log.Warn("network: the configured domains are not usable; none is allowed", "err", err)
		}
		if s.net.proxy == nil {
			s.net.proxy = netproxy.New(netproxy.Config{Rules: rules, Decider: netproxy.DeciderFunc(s.decideNetwork), OnAccess: s.reportAccess})
		} else {
			s.net.proxy.SetRules(rules)
		}
		s.net.domains = domains
	}
	p := s.net.proxy
	return func(callID, terminalID string, argv []string) tools.ProxyServer {
		return p.Endpoint(netproxy.Client{Command: QuoteCommand(argv), CallID: callID, TerminalID: terminalID})
	}
}

func (s *session) reportAccess(a netproxy.Access) {
	turnID := ""
	s.mu.Lock()
	if t := s.running; t != nil && a.Client.TerminalID == "" {
		turnID = t.id
	}
	s.mu.Unlock()
	s.emit(turnID, event.NetworkAccess{Host: a.Host, Port: a.Port, Decision: a.Decision, Bytes: a.Bytes, CallID: a.Client.CallID, TerminalID: a.Client.TerminalID})
}

// decideNetwork answers the proxy's question about a host.
func (s *session) decideNetwork(ctx context.Context, q netproxy.Question) netproxy.Answer {
	hp := net.JoinHostPort(q.Host, strconv.Itoa(q.Port))
	patterns := netproxy.Patterns(q.Host, q.Port, q.Local)
	if s.info.ApprovalPolicy == policy.Never || s.mgr.opts.Unattended {
		msg := fmt.Sprintf("agent-ls: network access to %s denied: nobody is asked in this run; "+
			"add %q to [sandbox_workspace_write] allowed_domains in the user config to allow it", hp, patterns[0])
		s.mgr.log.Warn(msg)
		return netproxy.Answer{Reason: msg}
	}
	s.mu.Lock()
	t := s.running
	s.mu.Unlock()
	if t == nil {
		return netproxy.Answer{Reason: fmt.Sprintf("agent-ls: network access to %s denied: no turn is running, so nobody can be asked; "+
			"allow the host for the session during a turn, or in [sandbox_workspace_write] allowed_domains", hp)}
	}
	d, pattern := t.askNetwork(ctx, q, patterns)
	switch d {
	case AllowOnce:
		return netproxy.Answer{Allow: true}
	case AllowAlways:
		return netproxy.Answer{Allow: true, Remember: true}
	case AllowPersist:
		entry := cmp.Or(pattern, patterns[0])
		var err error
		if slices.Contains(patterns, entry) {
			err = s.persistHost(entry)
		} else {
			err = fmt.Errorf("%q is not one of the entries offered (%s)", entry, strings.Join(patterns, ", "))
			entry = textcut.VisibleLine(entry)
		}
		if err != nil {
			s.mgr.log.Warn("network: the host is allowed for this session only: the config could not be written", "host", hp, "entry", entry, "err", err)
			t.emit(event.Message{Text: fmt.Sprintf("agent-ls could not add %s to allowed_domains in the user config (%v): %s is allowed for this session only.", entry, err, hp)})
		}
		return netproxy.Answer{Allow: true, Remember: true}
	}
	return netproxy.Answer{}
}

func (s *session) persistHost(entry string) error {
	if s.mgr.opts.PersistAllowedDomain == nil {
		return fmt.Errorf("no user config to write")
	}
	return s.mgr.opts.PersistAllowedDomain(entry)
}

// askNetwork puts the network question to the turn's frontend: while the
// command waits (ctx) and the turn runs. Unlike other questions it never
// aborts the turn: a command that ends, or a turn that ends, denies.
func (t *turn) askNetwork(ctx context.Context, q netproxy.Question, patterns []string) (decision, pattern string) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-t.done:
			cancel()
		case <-ctx.Done():
		}
	}()
	hp := net.JoinHostPort(q.Host, strconv.Itoa(q.Port))
	reason := fmt.Sprintf("The command %s wants to connect to %s.", q.Client.Command, hp)
	if q.Local {
		reason = fmt.Sprintf("The command %s wants a service on this machine or its local network: %s (%v).", q.Client.Command, hp, q.Addrs)
	}
	req := &ApprovalRequest{SessionID: t.s.info.SessionID, TurnID: t.id, ApprovalID: t.nextApprovalID(), CallID: q.Client.CallID,
		Kind: ApprovalNetwork, Host: q.Host, Port: q.Port, NetCommand: q.Client.Command, Patterns: patterns, Reason: reason,
		Options: []string{AllowOnce, AllowAlways, AllowPersist, RejectOnce}, Always: "connections to " + hp + " for the rest of the session"}
	decision = RejectOnce
	d, err := t.s.mgr.opts.Frontend.RequestApproval(ctx, req)
	switch {
	case err != nil || ctx.Err() != nil:
	case d == AllowOnce, d == AllowAlways, d == AllowPersist:
		decision = d
	}
	t.emit(event.Approval{ApprovalID: req.ApprovalID, Kind: string(req.Kind), Decision: decision})
	if decision == AllowPersist {
		pattern = req.Pattern
	}
	return decision, pattern
}
