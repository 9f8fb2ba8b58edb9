package model

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// The first request of a session to a provider waits for a connection to
// it: a TCP handshake, a round trip to the provider (tens of milliseconds
// across a continent), before TLS and the request itself. Preconnect opens
// that TCP connection when the session starts, while the user writes the
// first prompt; the transport's dial takes it for the first request that
// needs a connection to that address, and dials as usual when none is
// parked, or the parked one has been closed by the server meanwhile.
// TLS and HTTP/2 stay the transport's own, on top of it.

const (
	// preconnectLifetime is how long a parked connection waits for a
	// request; it is closed after that. Servers close connections that
	// say nothing, some after a minute; each is checked before use.
	preconnectLifetime = 2 * time.Minute
	// preconnectRecent: a client that made a request this recently most
	// likely has an idle connection in the transport's pool (kept 90 s),
	// which the next request takes first; none is parked.
	preconnectRecent = time.Minute
)

// preDialer is the dial of the model transport: it hands out the
// connections Preconnect parked, one per address.
type preDialer struct {
	dial     func(ctx context.Context, network, addr string) (net.Conn, error)
	lifetime time.Duration

	mu     sync.Mutex
	parked map[string]*parkedConn // by host:port
}

// parkedConn is a connection opened ahead of its request, or being opened.
type parkedConn struct {
	ready chan struct{} // closed when the dial has ended
	conn  net.Conn      // nil if the dial failed; set before ready closes
	timer *time.Timer   // closes conn when unused; set under preDialer.mu
}

func newPreDialer(dial func(ctx context.Context, network, addr string) (net.Conn, error)) *preDialer {
	return &preDialer{dial: dial, lifetime: preconnectLifetime, parked: map[string]*parkedConn{}}
}

// preconnect starts a dial of addr in the background, unless a
// connection to it is parked or being dialed already.
func (d *preDialer) preconnect(addr string) {
	d.mu.Lock()
	if d.parked[addr] != nil {
		d.mu.Unlock()
		return
	}
	p := &parkedConn{ready: make(chan struct{})}
	d.parked[addr] = p
	d.mu.Unlock()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		c, err := d.dial(ctx, "tcp", addr)
		cancel()
		if err != nil {
			c = nil
		}
		d.mu.Lock()
		p.conn = c
		if d.parked[addr] == p {
			if c == nil {
				delete(d.parked, addr)
			} else {
				p.timer = time.AfterFunc(d.lifetime, func() { d.expire(addr, p) })
			}
		}
		// Otherwise a dial has taken p meanwhile and waits for ready:
		// the connection is its.
		d.mu.Unlock()
		close(p.ready)
	}()
}

// expire closes p's connection if it is still parked.
func (d *preDialer) expire(addr string, p *parkedConn) {
	d.mu.Lock()
	if d.parked[addr] != p {
		d.mu.Unlock()
		return
	}
	delete(d.parked, addr)
	d.mu.Unlock()
	p.conn.Close()
}

// DialContext is the transport's dial: the connection parked for addr
// when there is one and it is still open (waiting for it if it is being
// dialed), a new one otherwise.
func (d *preDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	p := d.parked[addr]
	var timer *time.Timer
	if p != nil {
		delete(d.parked, addr)
		timer = p.timer
	}
	d.mu.Unlock()
	if p != nil {
		if timer != nil {
			timer.Stop()
		}
		select {
		case <-p.ready:
			if p.conn != nil && network == "tcp" && stillOpen(p.conn) {
				return p.conn, nil
			}
			if p.conn != nil {
				p.conn.Close()
			}
		case <-ctx.Done():
			go func() {
				<-p.ready
				if p.conn != nil {
					p.conn.Close()
				}
			}()
			return nil, ctx.Err()
		}
	}
	return d.dial(ctx, network, addr)
}

// preTransport is the model transport: an http.Transport that dials
// through a preDialer.
type preTransport struct {
	*http.Transport
	pre *preDialer
}

// newPreTransport returns t dialing through a preDialer over t's own
// dial (a net.Dialer when t has none).
func newPreTransport(t *http.Transport) *preTransport {
	dial := t.DialContext
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	d := newPreDialer(dial)
	t.DialContext = d.DialContext
	return &preTransport{Transport: t, pre: d}
}

// preconnector opens an endpoint's connection ahead of its requests; nil
// when the endpoint's HTTP client is not the model transport.
type preconnector struct {
	pre     *preDialer
	proxy   func(*http.Request) (*url.URL, error)
	url     *url.URL
	addr    string
	lastUse atomic.Int64 // UnixNano of the last request's start
}

func newPreconnector(hc *http.Client, rawURL string) *preconnector {
	pt, ok := hc.Transport.(*preTransport)
	if !ok {
		return nil
	}
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return nil
	}
	port := u.Port()
	switch {
	case port != "":
	case u.Scheme == "https":
		port = "443"
	case u.Scheme == "http":
		port = "80"
	default:
		return nil
	}
	return &preconnector{pre: pt.pre, proxy: pt.Proxy, url: u, addr: net.JoinHostPort(u.Hostname(), port)}
}

// used notes that a request starts.
func (p *preconnector) used() {
	if p != nil {
		p.lastUse.Store(time.Now().UnixNano())
	}
}

// start parks a connection for the next request, unless a request went
// out recently or the requests go through a proxy.
func (p *preconnector) start() {
	if p == nil {
		return
	}
	if last := p.lastUse.Load(); last != 0 && time.Since(time.Unix(0, last)) < preconnectRecent {
		return
	}
	if p.proxy != nil {
		if pu, err := p.proxy(&http.Request{Method: http.MethodPost, URL: p.url, Header: http.Header{}}); err != nil || pu != nil {
			return
		}
	}
	p.pre.preconnect(p.addr)
}
