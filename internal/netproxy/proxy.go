package netproxy

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"sync"
)

// Resolver resolves host names; *net.Resolver is one, tests inject
// their own.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Dialer makes the proxy's outgoing connections; *net.Dialer is one.
type Dialer interface {
	DialContext(ctx context.Context, network, address string) (net.Conn, error)
}

// Access is one connection through the proxy, reported when it closes.
type Access struct {
	Host string
	Port int
	// Decision is "allowed" or "denied".
	Decision string
	// Bytes is what the connection moved both ways to and from the host.
	Bytes  int64
	Client Client
}

// Config is what a [Proxy] is made of; every field is optional.
type Config struct {
	Rules    Rules
	Decider  Decider      // nil: everything not allowed by Rules is denied
	Resolver Resolver     // nil: net.DefaultResolver
	Dialer   Dialer       // nil: a net.Dialer
	OnAccess func(Access) // called as each connection closes
}

// Proxy is one session's proxy: its rules, its remembered answers and
// the endpoints its commands connect to.
type Proxy struct {
	cfg Config
	dec decisions

	mu    sync.Mutex
	rules Rules // cfg.Rules, then what SetRules set
}

// New returns a proxy; it serves nothing until [Proxy.Serve].
func New(cfg Config) *Proxy {
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.Dialer == nil {
		cfg.Dialer = &net.Dialer{}
	}
	return &Proxy{cfg: cfg, rules: cfg.Rules}
}

// SetRules replaces the configured hosts (the user changed the config):
// connections admitted from now on are judged by r. The answers the
// user gave for the session stay, but a host r denies is denied.
func (p *Proxy) SetRules(r Rules) {
	p.mu.Lock()
	p.rules = r
	p.mu.Unlock()
}

func (p *Proxy) currentRules() Rules {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.rules
}

// Serve accepts connections on ln for client until ctx ends or ln is
// closed, then closes ln and every connection still open and returns.
func (p *Proxy) Serve(ctx context.Context, ln net.Listener, client Client) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	var wg sync.WaitGroup
	defer wg.Wait()
	for {
		c, err := ln.Accept()
		if err != nil {
			cancel()
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("netproxy: accept: %w", err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			closeOnDone := context.AfterFunc(ctx, func() { c.Close() })
			defer closeOnDone()
			p.serveConn(ctx, c, client)
		}()
	}
}

// refusal is why a connection is not made: the status and text of the
// proxy's answer.
type refusal struct {
	status int
	text   string
}

func (r *refusal) Error() string { return r.text }

func deniedByUser(host string, port int) *refusal {
	return &refusal{403, fmt.Sprintf("agent-ls: the user denied network access to %s; ask the user to allow it if it is needed", hostPort(host, port))}
}

func hostPort(host string, port int) string { return net.JoinHostPort(host, strconv.Itoa(port)) }

// admit decides host and port for client and returns the addresses to
// connect to: the name is judged before it is resolved, local addresses
// after.
func (p *Proxy) admit(ctx context.Context, host string, port int, client Client) ([]netip.AddrPort, *refusal) {
	h := normalHost(host)
	rules := p.currentRules()
	if rules.Denied(h, port) {
		return nil, &refusal{403, fmt.Sprintf("agent-ls: network access to %s is denied by denied_domains in the agent-ls config", hostPort(h, port))}
	}
	exactLocal := rules.AllowedLocal(h, port)
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(h); err == nil {
		addrs = []netip.Addr{a}
	}
	nameIsLocal := h == "localhost" || strings.HasSuffix(h, ".localhost") || (len(addrs) == 1 && Local(addrs[0]))
	if !exactLocal && !nameIsLocal && !rules.Allowed(h, port) {
		if r := p.ask(ctx, Question{Host: h, Port: port, Client: client}); r != nil {
			return nil, r
		}
	}
	if addrs == nil {
		var err error
		addrs, err = p.cfg.Resolver.LookupNetIP(ctx, "ip", h)
		if err != nil || len(addrs) == 0 {
			return nil, &refusal{502, fmt.Sprintf("agent-ls proxy: cannot resolve %s: %v", h, err)}
		}
	}
	local := false
	for _, a := range addrs {
		local = local || Local(a)
	}
	if local && !exactLocal {
		if r := p.ask(ctx, Question{Host: h, Port: port, Local: true, Addrs: addrs, Client: client}); r != nil {
			return nil, r
		}
	}
	out := make([]netip.AddrPort, len(addrs))
	for i, a := range addrs {
		out[i] = netip.AddrPortFrom(a.Unmap(), uint16(port))
	}
	return out, nil
}

func (p *Proxy) ask(ctx context.Context, q Question) *refusal {
	a := p.dec.ask(ctx, p.cfg.Decider, q)
	if a.Allow {
		return nil
	}
	if a.Reason != "" {
		return &refusal{403, a.Reason}
	}
	return deniedByUser(q.Host, q.Port)
}

// dial connects to the first of addrs that answers: exactly the
// addresses admit checked.
func (p *Proxy) dial(ctx context.Context, addrs []netip.AddrPort) (net.Conn, error) {
	var errs []error
	for _, a := range addrs {
		c, err := p.cfg.Dialer.DialContext(ctx, "tcp", a.String())
		if err == nil {
			return c, nil
		}
		errs = append(errs, err)
	}
	return nil, errors.Join(errs...)
}

func (p *Proxy) report(a Access) {
	slog.Debug("netproxy: connection closed", "host", a.Host, "port", a.Port, "decision", a.Decision, "bytes", a.Bytes)
	if p.cfg.OnAccess != nil {
		p.cfg.OnAccess(a)
	}
}
