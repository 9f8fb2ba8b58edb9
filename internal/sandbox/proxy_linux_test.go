package sandbox

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agent-ls/agent-ls/internal/netproxy"
	"golang.org/x/sys/unix"
)

// questions records the proxy's questions and answers them with allow.
type questions struct {
	mu    sync.Mutex
	qs    []netproxy.Question
	allow func(netproxy.Question) bool
}

func (q *questions) Decide(_ context.Context, x netproxy.Question) netproxy.Answer {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.qs = append(q.qs, x)
	return netproxy.Answer{Allow: q.allow(x)}
}

func (q *questions) asked() []netproxy.Question {
	q.mu.Lock()
	defer q.mu.Unlock()
	return append([]netproxy.Question(nil), q.qs...)
}

func requireTool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skip("!!!!!! SKIPPED: no " + name + " here !!!!!!")
	}
	return p
}

// TestProxyEndpoint: with a proxy, a workspace-write command of a session
// reaches a server on the host's loopback through it (curl over plain
// HTTP and a CONNECT tunnel, Python's urllib) once the user allows it; a
// denial is the proxy's 403; without the proxy the same server stays
// unreachable, and a read-only command gets no endpoint.
func TestProxyEndpoint(t *testing.T) {
	requireSessionNet(t)
	curl := requireTool(t, "curl")
	python := requireTool(t, "python3")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "from the registry "+r.URL.Path) }))
	defer srv.Close()
	tls := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "tunnelled "+r.URL.Path) }))
	defer tls.Close()
	port := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	tlsPort := strconv.Itoa(tls.Listener.Addr().(*net.TCPAddr).Port)

	cwd, _ := workspace(t)
	reg := new(SocketRegistry)
	t.Cleanup(func() { reg.Close() })
	q := &questions{allow: func(x netproxy.Question) bool { return x.Port != 9 }}
	proxy := netproxy.New(netproxy.Config{Decider: q})
	p := Policy{Mode: WorkspaceWrite, Cwd: cwd, Sockets: reg, Proxy: proxy.Endpoint(netproxy.Client{Command: "curl"})}

	u := "http://127.0.0.1:" + port + "/pkg"
	if r := runIn(t, p, nil, curl, "-sS", "--max-time", "20", u); r.code != 0 || r.stdout != "from the registry /pkg" {
		t.Fatalf("curl through the proxy:\n%v", r)
	}
	qs := q.asked()
	if len(qs) != 1 || !qs[0].Local || qs[0].Host != "127.0.0.1" || strconv.Itoa(qs[0].Port) != port || qs[0].Client.Command != "curl" {
		t.Fatalf("questions %+v, want one about the local service 127.0.0.1:%s", qs, port)
	}
	if r := runIn(t, p, nil, curl, "-sS", "-k", "--max-time", "20", "https://localhost:"+tlsPort+"/tls"); r.code != 0 || r.stdout != "tunnelled /tls" {
		t.Errorf("curl through a CONNECT tunnel:\n%v", r)
	}
	py := "import urllib.request,sys; sys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode())"
	if r := runIn(t, p, nil, python, "-c", py, u); r.code != 0 || r.stdout != "from the registry /pkg" {
		t.Errorf("Python urllib through the proxy:\n%v", r)
	}
	if r := runIn(t, p, nil, curl, "-sS", "--max-time", "20", "http://127.0.0.1:9/"); !strings.Contains(r.stdout, "the user denied network access to 127.0.0.1:9") {
		t.Errorf("a denied host: want the proxy's 403 text:\n%v", r)
	}
	// The proxy is the only way out: a raw connect and curl told to
	// bypass it both fail.
	wantErrno(t, attack(t, p, "tcp-connect", "127.0.0.1:"+port), unix.ECONNREFUSED, "a raw TCP connect to the host's server")
	if r := runIn(t, p, nil, curl, "-sS", "--noproxy", "*", "--max-time", "10", u); r.code == 0 {
		t.Errorf("ESCAPE: curl without the proxy reached the host's server:\n%v", r)
	}
	ro := p
	ro.Mode = ReadOnly
	if r := runIn(t, ro, nil, "/bin/sh", "-c", "echo \"[$HTTP_PROXY]\""); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("a read-only command got a proxy:\n%v", r)
	}
	if r := runIn(t, p, nil, "/bin/sh", "-c", "echo \"$HTTPS_PROXY|$all_proxy|${NO_PROXY-unset}|\""); !strings.HasPrefix(r.stdout, "http://127.0.0.1:") || !strings.Contains(r.stdout, "||") {
		t.Errorf("the proxy variables: %v", r)
	}
}
