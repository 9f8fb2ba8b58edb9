package netproxy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hosts is an /etc/hosts-style resolver that records what it was asked.
type hosts struct {
	mu    sync.Mutex
	names map[string][]netip.Addr
	asked []string
}

func (h *hosts) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked = append(h.asked, host)
	if a, ok := h.names[host]; ok {
		return a, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

func (h *hosts) lookups() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.asked...)
}

// asker records the questions and answers them with answer.
type asker struct {
	mu     sync.Mutex
	qs     []Question
	answer func(Question) Answer
}

func (a *asker) Decide(_ context.Context, q Question) Answer {
	a.mu.Lock()
	a.qs = append(a.qs, q)
	f := a.answer
	a.mu.Unlock()
	return f(q)
}

func (a *asker) questions() []Question {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]Question(nil), a.qs...)
}

// dials records the addresses the proxy connected to.
type dials struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dials) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

type fixture struct {
	proxy    *Proxy
	url      *url.URL
	hosts    *hosts
	asker    *asker
	dials    *dials
	accesses chan Access
}

func newFixture(t *testing.T, rules Rules, answer func(Question) Answer) *fixture {
	t.Helper()
	f := &fixture{
		hosts: &hosts{names: map[string][]netip.Addr{
			"registry.test": {netip.MustParseAddr("127.0.0.1")},
			"meta.test":     {netip.MustParseAddr("169.254.169.254")},
			"localhost":     {netip.MustParseAddr("127.0.0.1")},
		}},
		asker:    &asker{answer: answer},
		dials:    &dials{},
		accesses: make(chan Access, 1000),
	}
	f.proxy = New(Config{Rules: rules, Decider: f.asker, Resolver: f.hosts, Dialer: f.dials,
		OnAccess: func(a Access) { f.accesses <- a }})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.proxy.Serve(ctx, ln, Client{Command: "curl https://registry.test/", CallID: "call_1"})
	}()
	t.Cleanup(func() { cancel(); <-done })
	f.url = &url.URL{Scheme: "http", Host: ln.Addr().String()}
	return f
}

func allowOnce(Question) Answer { return Answer{Allow: true} }

// client returns an HTTP client through the proxy that trusts srv.
func (f *fixture) client(srv *httptest.Server) *http.Client {
	tr := &http.Transport{Proxy: http.ProxyURL(f.url), DisableKeepAlives: true}
	if srv != nil && srv.TLS != nil {
		tr.TLSClientConfig = srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
		tr.TLSClientConfig.ServerName = "example.com"
	}
	return &http.Client{Transport: tr, Timeout: 20 * time.Second}
}

func port(t *testing.T, srv *httptest.Server) string {
	_, p, err := net.SplitHostPort(srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestConnectAfterAllowAsksNameThenLocal(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tarball") }))
	defer srv.Close()
	f := newFixture(t, Rules{}, allowOnce)
	code, body := get(t, f.client(srv), "https://registry.test:"+port(t, srv)+"/pkg")
	if code != 200 || body != "tarball" {
		t.Fatalf("got %d %q", code, body)
	}
	qs := f.asker.questions()
	if len(qs) != 2 || qs[0].Local || !qs[1].Local || qs[0].Host != "registry.test" || qs[0].Client.CallID != "call_1" {
		t.Fatalf("questions = %+v, want the name then the local service", qs)
	}
	if got := qs[1].Addrs; len(got) != 1 || got[0].String() != "127.0.0.1" {
		t.Errorf("local question addresses = %v", got)
	}
	a := <-f.accesses
	if a.Decision != "allowed" || a.Host != "registry.test" || a.Bytes < int64(len("tarball")) {
		t.Errorf("access = %+v", a)
	}
	if d := f.dials.addrs; len(d) != 1 || d[0] != "127.0.0.1:"+port(t, srv) {
		t.Errorf("dialled %v, want exactly the checked address", d)
	}
	// Allow once: the next connection asks again.
	get(t, f.client(srv), "https://registry.test:"+port(t, srv)+"/pkg")
	if n := len(f.asker.questions()); n != 4 {
		t.Errorf("%d questions after a second connection, want 4", n)
	}
}

func TestDenyIs403WithoutResolving(t *testing.T) {
	f := newFixture(t, Rules{}, func(Question) Answer { return Answer{} })
	resp, err := f.client(nil).Get("http://registry.test/x")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 403 || !strings.Contains(string(b), "the user denied network access to registry.test:80") {
		t.Fatalf("got %d %q", resp.StatusCode, b)
	}
	if l := f.hosts.lookups(); len(l) != 0 {
		t.Errorf("resolved %v before the name was allowed", l)
	}
	// CONNECT: the client sees the 403 too.
	_, msg := get(t, f.client(nil), "https://registry.test/")
	if !strings.Contains(msg, "Forbidden") {
		t.Errorf("CONNECT after deny: %q", msg)
	}
	if a := <-f.accesses; a.Decision != "denied" || a.Bytes != 0 {
		t.Errorf("access = %+v", a)
	}
}

func TestDeniedDomainsWinAndAreNotAsked(t *testing.T) {
	r, _ := ParseRules([]string{"*.example.test"}, []string{"bad.example.test"})
	f := newFixture(t, r, allowOnce)
	code, body := get(t, f.client(nil), "http://bad.example.test/")
	if code != 403 || !strings.Contains(body, "denied_domains") {
		t.Fatalf("got %d %q", code, body)
	}
	if len(f.asker.questions()) != 0 || len(f.hosts.lookups()) != 0 {
		t.Error("a denied domain was asked about or resolved")
	}
}

func TestWildcardNeverCoversLocalAddresses(t *testing.T) {
	r, _ := ParseRules([]string{"*.test"}, nil)
	f := newFixture(t, r, func(q Question) Answer { return Answer{Allow: !q.Local} })
	start := time.Now()
	code, body := get(t, f.client(nil), "http://meta.test/latest/meta-data/")
	if code != 403 || !strings.Contains(body, "meta.test:80") {
		t.Fatalf("got %d %q", code, body)
	}
	if time.Since(start) > 5*time.Second {
		t.Error("the 403 was not fast")
	}
	qs := f.asker.questions()
	if len(qs) != 1 || !qs[0].Local || qs[0].Addrs[0].String() != "169.254.169.254" {
		t.Fatalf("questions = %+v, want only the local-service question", qs)
	}
	if len(f.dials.addrs) != 0 {
		t.Errorf("dialled %v", f.dials.addrs)
	}
	// An IP literal of a local range is the local question directly.
	get(t, f.client(nil), "http://169.254.169.254/")
	if qs := f.asker.questions(); len(qs) != 2 || !qs[1].Local {
		t.Fatalf("questions = %+v", qs)
	}
}

func TestExactEntryAdmitsLocalUnasked(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok "+r.URL.Path) }))
	defer srv.Close()
	r, _ := ParseRules([]string{"localhost:" + port(t, srv)}, nil)
	f := newFixture(t, r, func(Question) Answer { return Answer{} })
	code, body := get(t, f.client(nil), "http://localhost:"+port(t, srv)+"/a")
	if code != 200 || body != "ok /a" {
		t.Fatalf("got %d %q", code, body)
	}
	if len(f.asker.questions()) != 0 {
		t.Errorf("asked %+v", f.asker.questions())
	}
	// Another port of the same host is asked, and denied.
	if code, _ := get(t, f.client(nil), "http://localhost:1/"); code != 403 {
		t.Errorf("other port: %d", code)
	}
}

func TestConcurrentConnectionsWaitOnOneQuestion(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	release := make(chan struct{})
	f := newFixture(t, Rules{}, func(Question) Answer { <-release; return Answer{Allow: true} })
	u := "http://127.0.0.1:" + port(t, srv) + "/"
	var wg sync.WaitGroup
	var ok atomic.Int32
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if code, _ := get(t, f.client(nil), u); code == 200 {
				ok.Add(1)
			}
		}()
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(f.asker.questions()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond) // let the others arrive and wait
	close(release)
	wg.Wait()
	if n := ok.Load(); n != 10 {
		t.Errorf("%d of 10 connections succeeded", n)
	}
	// Every connection that arrived while the question was open shared it.
	if n := len(f.asker.questions()); n >= 10 {
		t.Errorf("%d questions for 10 concurrent connections", n)
	}
}

func TestRememberedForTheSessionOnly(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	defer srv.Close()
	always := func(Question) Answer { return Answer{Allow: true, Remember: true} }
	f := newFixture(t, Rules{}, always)
	u := "http://registry.test:" + port(t, srv) + "/"
	for range 3 {
		if code, body := get(t, f.client(nil), u); code != 200 {
			t.Fatalf("got %d %q", code, body)
		}
	}
	if n := len(f.asker.questions()); n != 2 {
		t.Errorf("%d questions, want 2 (name, local) once for the session", n)
	}
	g := newFixture(t, Rules{}, always) // a new session asks again
	get(t, g.client(nil), u)
	if n := len(g.asker.questions()); n != 2 {
		t.Errorf("new session: %d questions, want 2", n)
	}
}

func TestPlainHTTPForwardStreamsBodiesAndCounts(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Proxy-Connection") != "" || r.RequestURI != "/up?q=1" {
			http.Error(w, "proxy headers or URI leaked: "+r.RequestURI, 500)
			return
		}
		n, _ := io.Copy(io.Discard, r.Body)
		fmt.Fprintf(w, "got %d", n)
	}))
	defer srv.Close()
	f := newFixture(t, Rules{}, allowOnce)
	body := strings.Repeat("x", 1<<20)
	resp, err := f.client(nil).Post("http://localhost:"+port(t, srv)+"/up?q=1", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != fmt.Sprintf("got %d", len(body)) {
		t.Fatalf("got %d %q", resp.StatusCode, b)
	}
	if a := <-f.accesses; a.Bytes < int64(len(body)) || a.Port == 0 {
		t.Errorf("access = %+v, want at least the body's bytes", a)
	}
	if qs := f.asker.questions(); len(qs) != 1 || !qs[0].Local {
		t.Errorf("localhost: questions %+v, want the local question alone", qs)
	}
}

func TestBadRequestsAreRefused(t *testing.T) {
	f := newFixture(t, Rules{}, allowOnce)
	for _, raw := range []string{"GET / HTTP/1.1\r\nHost: x\r\n\r\n", "CONNECT registry.test HTTP/1.1\r\nHost: registry.test\r\n\r\n", "garbage\r\n\r\n"} {
		c, err := net.Dial("tcp", f.url.Host)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(c, raw)
		b, _ := io.ReadAll(c)
		c.Close()
		if !strings.HasPrefix(string(b), "HTTP/1.1 400") {
			t.Errorf("%q: %q", raw, b)
		}
	}
	if len(f.asker.questions()) != 0 {
		t.Error("a bad request was asked about")
	}
}

func TestServeEndsWithItsContext(t *testing.T) {
	p := New(Config{Decider: DeciderFunc(func(ctx context.Context, q Question) Answer { <-ctx.Done(); return Answer{} })})
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- p.Serve(ctx, ln, Client{}) }()
	c, _ := net.Dial("tcp", ln.Addr().String())
	io.WriteString(c, "CONNECT example.org:443 HTTP/1.1\r\nHost: example.org:443\r\n\r\n")
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still running after its context ended")
	}
	if _, err := ln.Accept(); !errors.Is(err, net.ErrClosed) {
		t.Errorf("accept after Serve returned: %v, want the listener closed", err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if b, err := io.ReadAll(c); err != nil || (len(b) > 0 && !strings.Contains(string(b), " 403 ")) {
		t.Errorf("the waiting connection got %q, %v: want a 403 or the end", b, err)
	}
}

// TestEndlessHeadersAreCut: a client that sends header lines without end
// (one endless line, or endless lines) is answered 431 once it passes
// the bound, and nothing is asked or dialled: the proxy never holds more
// of a request than maxHeaderBytes.
func TestEndlessHeadersAreCut(t *testing.T) {
	f := newFixture(t, Rules{}, allowOnce)
	for name, chunk := range map[string]string{"one line": strings.Repeat("a", 64<<10), "many lines": strings.Repeat("X-Pad: a\r\n", 6<<10)} {
		c, err := net.Dial("tcp", f.url.Host)
		if err != nil {
			t.Fatal(err)
		}
		first := "GET http://registry.test/ HTTP/1.1\r\nHost: registry.test\r\n"
		if name == "one line" {
			first += "X-Long: "
		}
		io.WriteString(c, first)
		go func() {
			// Four times the bound, or until the proxy closes.
			for sent := 0; sent < 4*maxHeaderBytes; sent += len(chunk) {
				if _, err := io.WriteString(c, chunk); err != nil {
					return
				}
			}
		}()
		b, _ := io.ReadAll(io.LimitReader(c, 4096))
		c.Close()
		if !strings.HasPrefix(string(b), "HTTP/1.1 431") {
			t.Errorf("%s: %.80q", name, b)
		}
	}
	f.dials.mu.Lock()
	dialled := len(f.dials.addrs)
	f.dials.mu.Unlock()
	if len(f.asker.questions()) != 0 || dialled != 0 {
		t.Error("a request over the bound was asked about or dialled")
	}
}
