package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// seen is one request a fake HTTP server got.
type seen struct {
	method   string // the HTTP method
	rpc      string // the JSON-RPC method, if any
	session  string
	version  string
	accept   string
	ctype    string
	auth     string
	response bool // the body is a JSON-RPC response
}

// fakeHTTP is a streamable-HTTP server scripted by a test: rpc answers
// each POSTed request (nil: 202 for everything else), get serves GET.
type fakeHTTP struct {
	mu   sync.Mutex
	seen []seen
	rpc  func(w http.ResponseWriter, r *http.Request, m *message)
	get  func(w http.ResponseWriter, r *http.Request)
}

func (f *fakeHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var m message
	_ = json.Unmarshal(body, &m)
	f.mu.Lock()
	f.seen = append(f.seen, seen{method: r.Method, rpc: m.Method, session: r.Header.Get("Mcp-Session-Id"),
		version: r.Header.Get("MCP-Protocol-Version"), accept: r.Header.Get("Accept"), ctype: r.Header.Get("Content-Type"),
		auth: r.Header.Get("Authorization"), response: m.Method == "" && len(m.ID) > 0})
	f.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && f.get != nil:
		f.get(w, r)
	case r.Method == http.MethodGet:
		http.Error(w, "no stream here", http.StatusMethodNotAllowed)
	case r.Method == http.MethodDelete:
		w.WriteHeader(http.StatusNoContent)
	case m.Method == "" || len(m.ID) == 0:
		w.WriteHeader(http.StatusAccepted)
	default:
		f.rpc(w, r, &m)
	}
}

func (f *fakeHTTP) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.seen...)
}

// writeJSON answers m with result as a JSON body.
func writeJSON(w http.ResponseWriter, m *message, result string) {
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result)
}

// writeEvents answers with an event stream of the given messages.
func writeEvents(w http.ResponseWriter, msgs ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, m := range msgs {
		fmt.Fprintf(w, "event: message\ndata: %s\n\n", m)
	}
	w.(http.Flusher).Flush()
}

// initResult is the answer to initialize of a server of 2025-06-18.
const initResult = `{"protocolVersion":"2025-06-18","capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake","version":"0"}}`

// httpClient connects a client to f, on loopback, with the handshake
// made; changed counts list_changed. maxEvent bounds an event (0: the
// default).
func httpClient(t *testing.T, f *fakeHTTP, maxEvent int) (*client, *atomic.Int64, string) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	headers := http.Header{}
	headers.Set("Authorization", "Bearer tok")
	tr := httpTransport(srv.URL+"/mcp", headers)
	if maxEvent > 0 {
		tr.MaxEventSize = maxEvent
	}
	var changed atomic.Int64
	c, err := connectClient(testCtx(t), tr, "test", &floodLog{log: slog.New(slog.DiscardHandler)}, clientHooks{toolsChanged: func() { changed.Add(1) }})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(c.close)
	return c, &changed, srv.URL
}

// TestHTTPTransport: answers as a JSON body and as an event stream whose
// notification and server request come before the answer; every POST
// carries the content type, the accepted types, the token, and after
// initialize the session and the version agreed; notifications and
// responses get 202; a server without a GET stream (405) is fine; close
// ends the session with DELETE.
func TestHTTPTransport(t *testing.T) {
	f := &fakeHTTP{}
	f.rpc = func(w http.ResponseWriter, r *http.Request, m *message) {
		switch m.Method {
		case "initialize":
			w.Header().Set("Mcp-Session-Id", "s-1")
			writeJSON(w, m, initResult)
		case "tools/list":
			writeEvents(w, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`,
				`{"jsonrpc":"2.0","id":"srv-1","method":"ping"}`,
				fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"t","inputSchema":{"type":"object"}}]}}`, m.ID))
			// The stream stays open after the answer, which is not
			// waited for.
			<-r.Context().Done()
		case "tools/call":
			writeJSON(w, m, `{"content":[{"type":"text","text":"called"}]}`)
		}
	}
	c, changed, _ := httpClient(t, f, 0)
	ctx := testCtx(t)
	list, err := c.listTools(ctx, "")
	if err != nil || len(list.Tools) != 1 || list.Tools[0].Name != "t" {
		t.Fatalf("tools/list: %+v, %v", list, err)
	}
	// The SDK handles a notification in a goroutine of its own.
	for changed.Load() == 0 && ctx.Err() == nil {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if changed.Load() != 1 {
		t.Errorf("%d list_changed", changed.Load())
	}
	res, err := c.callTool(ctx, "t", json.RawMessage(`{}`))
	if err != nil || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "called" {
		t.Fatalf("tools/call: %+v, %v", res, err)
	}
	// The ping is answered in the background.
	for !slices.ContainsFunc(f.requests(), func(s seen) bool { return s.response }) {
		if ctx.Err() != nil {
			t.Fatal("the ping was not answered")
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.close()

	var pings, deletes int
	for i, s := range f.requests() {
		switch {
		case s.method == http.MethodPost && s.response:
			pings++
		case s.method == http.MethodDelete:
			deletes++
			if s.session != "s-1" {
				t.Errorf("DELETE without the session: %+v", s)
			}
			continue
		case s.method == http.MethodGet:
			if s.accept != "text/event-stream" || s.session != "s-1" {
				t.Errorf("GET %+v", s)
			}
			continue
		}
		if s.ctype != "application/json" || s.accept != "application/json, text/event-stream" || s.auth != "Bearer tok" {
			t.Errorf("request %d %+v", i, s)
		}
		if i == 0 && (s.session != "" || s.version != "") {
			t.Errorf("initialize with a session or a version: %+v", s)
		}
		if i > 0 && (s.session != "s-1" || s.version != "2025-06-18") {
			t.Errorf("request %d without the session or the version: %+v", i, s)
		}
	}
	if deletes != 1 {
		t.Errorf("%d DELETEs: %+v", deletes, f.requests())
	}
	if pings != 1 {
		t.Errorf("%d answers to one ping", pings)
	}
}

// TestHTTPSessionGone: a 404 to a request with the session is a
// transport error, so the server is connected again; nothing is
// DELETEd.
func TestHTTPSessionGone(t *testing.T) {
	f := &fakeHTTP{}
	f.rpc = func(w http.ResponseWriter, r *http.Request, m *message) {
		if m.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", "s-1")
			writeJSON(w, m, initResult)
			return
		}
		http.Error(w, "session not found", http.StatusNotFound)
	}
	c, _, _ := httpClient(t, f, 0)
	_, err := c.listTools(testCtx(t), "")
	if !errors.Is(err, sdk.ErrSessionMissing) || !isTransportError(err) {
		t.Fatalf("tools/list: %v", err)
	}
	c.close()
	for _, s := range f.requests() {
		if s.method == http.MethodDelete {
			t.Errorf("a forgotten session was DELETEd")
		}
	}
}

// TestHTTPErrors: a JSON-RPC error in a failed HTTP answer is the
// server's answer; a refusal without one, an event stream that ends
// without the answer and an event over the bound are transport errors.
func TestHTTPErrors(t *testing.T) {
	f := &fakeHTTP{}
	f.rpc = func(w http.ResponseWriter, r *http.Request, m *message) {
		var p struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(m.Params, &p)
		switch {
		case m.Method == "initialize":
			writeJSON(w, m, initResult)
		case p.Name == "rpc-error":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"no such tool"}}`, m.ID)
		case p.Name == "refused":
			http.Error(w, "overloaded", http.StatusServiceUnavailable)
		case p.Name == "no-answer":
			writeEvents(w, `{"jsonrpc":"2.0","method":"notifications/progress","params":{}}`)
		case p.Name == "huge":
			writeEvents(w, fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"%s"}]}}`, m.ID, strings.Repeat("x", 4<<10)))
		}
	}
	c, _, _ := httpClient(t, f, 1<<10)
	ctx := testCtx(t)
	_, err := c.callTool(ctx, "rpc-error", json.RawMessage(`{}`))
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != -32602 || isTransportError(err) {
		t.Errorf("rpc-error: %v", err)
	}
	for _, name := range []string{"refused", "no-answer", "huge"} {
		if _, err := c.callTool(ctx, name, json.RawMessage(`{}`)); !isTransportError(err) {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestHTTPListenStream: the GET stream brings list_changed.
func TestHTTPListenStream(t *testing.T) {
	f := &fakeHTTP{}
	f.rpc = func(w http.ResponseWriter, r *http.Request, m *message) { writeJSON(w, m, initResult) }
	f.get = func(w http.ResponseWriter, r *http.Request) {
		writeEvents(w, `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	}
	_, changed, _ := httpClient(t, f, 0)
	ctx := testCtx(t)
	for changed.Load() == 0 {
		if ctx.Err() != nil {
			t.Fatal("no list_changed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestHTTPRedirect: a redirect to another origin is not followed, so the
// token stays with the configured server.
func TestHTTPRedirect(t *testing.T) {
	var leaked atomic.Int64
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			leaked.Add(1)
		}
		http.Error(w, "no", http.StatusNotFound)
	}))
	t.Cleanup(other.Close)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, other.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	t.Cleanup(srv.Close)
	headers := http.Header{}
	headers.Set("Authorization", "Bearer tok")
	_, err := connectClient(testCtx(t), httpTransport(srv.URL+"/mcp", headers), "test", &floodLog{log: slog.New(slog.DiscardHandler)}, clientHooks{})
	if err == nil || !strings.Contains(err.Error(), "another origin") || leaked.Load() != 0 {
		t.Errorf("initialize: %v; %d requests with the token elsewhere", err, leaked.Load())
	}
}

// TestMCPGoHandshake: mcp-go's server (which speaks 2026-07-28 too)
// accepts the initialize handshake of protocolVersion and sends its
// list_changed on the GET stream without a subscription.
func TestMCPGoHandshake(t *testing.T) {
	s, url, _ := httpServer(t, "tok")
	headers := http.Header{}
	headers.Set("Authorization", "Bearer tok")
	headers.Set("X-Client", "agent-ls-test")
	changed := make(chan struct{}, 10)
	c, err := connectClient(testCtx(t), httpTransport(url, headers), "test", &floodLog{log: slog.New(slog.DiscardHandler)},
		clientHooks{toolsChanged: func() {
			select {
			case changed <- struct{}{}:
			default:
			}
		}})
	if err != nil {
		t.Fatalf("initialize: %v", err)
	}
	t.Cleanup(c.close)
	if v := c.cs.InitializeResult().ProtocolVersion; v != protocolVersion {
		t.Fatalf("initialize: %q", v)
	}
	// The GET stream may open after the tool is added: add tools until a
	// notification comes.
	ctx := testCtx(t)
	for i := 0; ; i++ {
		s.AddTool(mcp.NewTool(fmt.Sprintf("t%d", i)), nil)
		select {
		case <-changed:
			return
		case <-ctx.Done():
			t.Fatal("no list_changed")
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// TestHTTPResumesStream: a server that ends a call's event stream before
// the answer, having given its events ids, gets a GET with the last
// event id, and the answer it sends on that stream is the call's.
func TestHTTPResumesStream(t *testing.T) {
	f := &fakeHTTP{}
	var callID atomic.Value
	var resumedFrom atomic.Value
	f.rpc = func(w http.ResponseWriter, r *http.Request, m *message) {
		if m.Method == "initialize" {
			w.Header().Set("Mcp-Session-Id", "s-1")
			writeJSON(w, m, initResult)
			return
		}
		callID.Store(string(m.ID))
		// A priming event with an id, then the stream ends.
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "id: e1\nretry: 10\ndata: \n\n")
		w.(http.Flusher).Flush()
	}
	f.get = func(w http.ResponseWriter, r *http.Request) {
		last := r.Header.Get("Last-Event-ID")
		if last == "" {
			http.Error(w, "no stream here", http.StatusMethodNotAllowed)
			return
		}
		resumedFrom.Store(last)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: e2\nevent: message\ndata: %s\n\n",
			fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"resumed"}]}}`, callID.Load()))
		w.(http.Flusher).Flush()
	}
	c, _, _ := httpClient(t, f, 0)
	res, err := c.callTool(testCtx(t), "t", json.RawMessage(`{}`))
	if err != nil || len(res.Content) != 1 || res.Content[0].(*sdk.TextContent).Text != "resumed" {
		t.Fatalf("tools/call: %+v, %v", res, err)
	}
	if got, _ := resumedFrom.Load().(string); got != "e1" {
		t.Errorf("resumed from %q, want e1", got)
	}
	for _, s := range f.requests() {
		if s.method == http.MethodGet && (s.session != "s-1" || s.auth != "Bearer tok") {
			t.Errorf("GET without the session or the token: %+v", s)
		}
	}
}
