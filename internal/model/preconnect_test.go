package model

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// countingDial dials TCP and counts the dials.
type countingDial struct {
	mu    sync.Mutex
	n     int
	conns []net.Conn
}

func (c *countingDial) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	conn, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	if err == nil {
		c.conns = append(c.conns, conn)
	}
	return conn, err
}

func (c *countingDial) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

// parkedReady waits until the connection parked for addr has been dialed
// and returns it.
func parkedReady(t *testing.T, d *preDialer, addr string) *parkedConn {
	t.Helper()
	d.mu.Lock()
	p := d.parked[addr]
	d.mu.Unlock()
	if p == nil {
		t.Fatalf("nothing parked for %s", addr)
	}
	<-p.ready
	if p.conn == nil {
		t.Fatalf("the preconnect to %s failed", addr)
	}
	return p
}

func parkedCount(d *preDialer) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.parked)
}

// The first request goes over the connection Preconnect opened: one
// dial in all. A request soon after opens none ahead.
func TestPreconnectFirstRequestTakesIt(t *testing.T) {
	srv := newFake(t, fakemodel.Say("hello"), fakemodel.Say("again"))
	cd := &countingDial{}
	tr := newPreTransport(&http.Transport{DialContext: cd.dial})
	defer tr.CloseIdleConnections()
	c := newClient(t, srv, WireResponses, func(cfg *Config) { cfg.HTTPClient = &http.Client{Transport: tr} })
	pc := c.(*client)
	if pc.api.pre == nil {
		t.Fatal("a client on the model transport has no preconnector")
	}
	u, _ := url.Parse(srv.URL())
	pc.Preconnect()
	p := parkedReady(t, tr.pre, u.Host)
	if cd.count() != 1 {
		t.Fatalf("%d dials after Preconnect, want 1", cd.count())
	}
	rec := &recorder{}
	resp, err := c.Stream(context.Background(), &Request{Model: "m", Input: []Item{{Type: ItemMessage, Role: "user", Text: "hi"}}}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Output) != 1 || rec.deltas(TextDelta, resp.Output[0].ID) != "hello" {
		t.Fatalf("answer %+v", resp.Output)
	}
	if cd.count() != 1 || parkedCount(tr.pre) != 0 {
		t.Fatalf("after the request: %d dials, %d parked; want the parked connection taken", cd.count(), parkedCount(tr.pre))
	}
	if p.timer.Stop() {
		t.Fatal("the taken connection's expiry timer still runs")
	}
	pc.Preconnect()
	if parkedCount(tr.pre) != 0 {
		t.Fatal("Preconnect right after a request parked a connection")
	}
}

// A connection the server closed while it was parked is not used: the
// dial opens a new one.
func TestPreconnectServerClosedIt(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 2)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	cd := &countingDial{}
	d := newPreDialer(cd.dial)
	addr := ln.Addr().String()
	d.preconnect(addr)
	p := parkedReady(t, d, addr)
	(<-accepted).Close()
	for stillOpen(p.conn) {
		time.Sleep(time.Millisecond) // until the close reaches our end
	}
	c, err := d.DialContext(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if c == p.conn || cd.count() != 2 {
		t.Fatalf("the dial returned the closed connection (%d dials)", cd.count())
	}
	srvSide := <-accepted
	defer srvSide.Close()
	c.Write([]byte("x"))
	b := make([]byte, 1)
	if _, err := io.ReadFull(srvSide, b); err != nil || b[0] != 'x' {
		t.Fatalf("the new connection does not reach the server: %v", err)
	}
}

// A parked connection nobody takes is closed after its lifetime.
func TestPreconnectExpires(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	d := newPreDialer((&net.Dialer{}).DialContext)
	d.lifetime = time.Millisecond
	d.preconnect(ln.Addr().String())
	c, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if n, err := c.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Fatalf("the server read %d bytes, %v; want EOF when the parked connection expires", n, err)
	}
	for parkedCount(d) != 0 {
		time.Sleep(time.Millisecond)
	}
}

// pipeDial hands out one end of a pipe per dial, after release closes.
type pipeDial struct {
	release chan struct{}
	mu      sync.Mutex
	ours    []net.Conn
	theirs  []net.Conn
}

func (p *pipeDial) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	<-p.release
	a, b := net.Pipe()
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ours, p.theirs = append(p.ours, a), append(p.theirs, b)
	return a, nil
}

// A dial while the preconnect is still dialing waits for it and takes
// its connection, rather than dialing a second.
func TestPreconnectDialInFlight(t *testing.T) {
	pd := &pipeDial{release: make(chan struct{})}
	d := newPreDialer(pd.dial)
	d.preconnect("model.example:443")
	got := make(chan net.Conn)
	go func() {
		c, err := d.DialContext(context.Background(), "tcp", "model.example:443")
		if err != nil {
			t.Error(err)
		}
		got <- c
	}()
	close(pd.release)
	c := <-got
	pd.mu.Lock()
	defer pd.mu.Unlock()
	if len(pd.ours) != 1 || c != pd.ours[0] {
		t.Fatalf("%d dials; the dial did not take the preconnected connection", len(pd.ours))
	}
	if parkedCount(d) != 0 {
		t.Fatal("the taken connection is still parked")
	}
}

// A dial whose context ends while the preconnect is still dialing fails
// with the context's error; the connection, once dialed, is closed.
func TestPreconnectDialCancelled(t *testing.T) {
	pd := &pipeDial{release: make(chan struct{})}
	d := newPreDialer(pd.dial)
	d.preconnect("model.example:443")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := d.DialContext(ctx, "tcp", "model.example:443"); !errors.Is(err, context.Canceled) {
		t.Fatalf("DialContext = %v, want context.Canceled", err)
	}
	close(pd.release)
	for {
		pd.mu.Lock()
		n := len(pd.theirs)
		pd.mu.Unlock()
		if n == 1 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := pd.theirs[0].Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the far end read %v, want EOF: the abandoned connection was not closed", err)
	}
}

// No connection is opened ahead through a proxy, nor for a client with an
// HTTP client of its own.
func TestPreconnectNotThroughProxyOrOwnClient(t *testing.T) {
	cd := &countingDial{}
	tr := newPreTransport(&http.Transport{DialContext: cd.dial})
	tr.Proxy = func(*http.Request) (*url.URL, error) { return url.Parse("http://proxy.example:3128") }
	p := newPreconnector(&http.Client{Transport: tr}, "https://api.example/v1/responses")
	if p == nil || p.addr != "api.example:443" {
		t.Fatalf("preconnector %+v", p)
	}
	p.start()
	if parkedCount(tr.pre) != 0 || cd.count() != 0 {
		t.Fatal("a connection was opened ahead although a proxy carries the requests")
	}
	if newPreconnector(&http.Client{}, "https://api.example/v1/responses") != nil {
		t.Fatal("a client with its own transport got a preconnector")
	}
	srv := newFake(t)
	c := newClient(t, srv, WireResponses, func(cfg *Config) { cfg.HTTPClient = &http.Client{} })
	c.(*client).Preconnect() // does nothing, and does not panic
}

// Over TLS the transport does the handshake on the parked connection, and
// HTTP/2 is negotiated as without it.
func TestPreconnectTLSAndHTTP2(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, r.Proto)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	cd := &countingDial{}
	base := http.DefaultTransport.(*http.Transport).Clone()
	base.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	base.DialContext = cd.dial
	tr := newPreTransport(base)
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	p := newPreconnector(hc, srv.URL+"/v1/responses")
	p.start()
	u, _ := url.Parse(srv.URL)
	parkedReady(t, tr.pre, u.Host)
	res, err := hc.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if string(body) != "HTTP/2.0" || cd.count() != 1 {
		t.Fatalf("the server saw %q over %d dials; want HTTP/2.0 over the one parked", body, cd.count())
	}
}
