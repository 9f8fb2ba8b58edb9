package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"
)

// httpServer serves testServer over streamable HTTP on loopback, refusing
// requests without the bearer token and the header given.
func httpServer(t *testing.T, token string) (*mcpserver.MCPServer, string, *atomic.Int64) {
	t.Helper()
	s := testServer()
	h := mcpserver.NewStreamableHTTPServer(s)
	var refused atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token || r.Header.Get("X-Client") != "agent-ls-test" {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return s, srv.URL + "/mcp", &refused
}

// TestStreamableHTTP: a server over streamable HTTP (mcp-go's server)
// gets the headers and the bearer token, lists and calls tools, images
// included, and its list_changed reaches the registry.
func TestStreamableHTTP(t *testing.T) {
	s, url, refused := httpServer(t, "tok-123")
	cfg := ServerConfig{Name: "remote", URL: url, BearerToken: "tok-123", HTTPHeaders: map[string]string{"X-Client": "agent-ls-test"}}
	set, reg, fails := startSet(t, cfg)
	st := statusOf(t, set, "remote")
	if st.State != StateReady || st.Stdio || st.StderrTail != nil {
		t.Fatalf("status %+v", st)
	}
	if !slices.Contains(st.Tools, "echo") || !slices.Contains(st.Tools, "image") {
		t.Errorf("tools %q", st.Tools)
	}
	if r := call(t, reg, nil, "remote__echo", map[string]any{"text": "over http"}); r.Output.Text != "echo: over http" {
		t.Errorf("echo: %+v", r.Output)
	}
	if r := call(t, reg, nil, "remote__image", map[string]any{}); len(r.Output.Images) != 1 {
		t.Errorf("image: %+v", r.Output)
	}
	if r := call(t, reg, nil, "remote__fail", map[string]any{}); !r.Output.Failed || r.Output.Text != "the database is locked" {
		t.Errorf("isError: %+v", r.Output)
	}

	s.AddTool(mcp.NewTool("added", mcp.WithDescription("Added while connected."), mcp.WithReadOnlyHintAnnotation(true)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("added tool"), nil
		})
	waitFor(t, set, func() bool { _, ok := reg.Lookup("remote__added"); return ok })
	s.DeleteTools("added")
	waitFor(t, set, func() bool { _, ok := reg.Lookup("remote__added"); return !ok })
	if n := refused.Load(); n != 0 {
		t.Errorf("%d requests came without the token or header", n)
	}
	if len(fails.list()) > 0 {
		t.Errorf("failures %q", fails.list())
	}
}

// TestHTTPWrongToken: a server that refuses us fails to start, with the
// reason.
func TestHTTPWrongToken(t *testing.T) {
	_, url, _ := httpServer(t, "right")
	set, reg, fails := startSet(t, ServerConfig{Name: "remote", URL: url, BearerToken: "wrong"})
	st := statusOf(t, set, "remote")
	if st.State != StateFailed || !strings.Contains(st.Error, "initialize") {
		t.Errorf("status %+v", st)
	}
	if len(reg.Names()) != 0 || len(fails.list()) != 1 {
		t.Errorf("names %q, failures %q", reg.Names(), fails.list())
	}
}

// TestHTTPLegacyServer: a streamable-HTTP server that never answers a
// method it does not know (as a server of an older protocol might do
// with server/discover) starts within its startup timeout: the client
// asks it nothing but the handshake, tools and calls.
func TestHTTPLegacyServer(t *testing.T) {
	h := mcpserver.NewStreamableHTTPServer(testServer())
	known := []string{"initialize", "notifications/initialized", "tools/list", "tools/call"}
	var unknown atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var m struct {
			Method string `json:"method"`
		}
		if r.Method == http.MethodPost && json.Unmarshal(body, &m) == nil && m.Method != "" && !slices.Contains(known, m.Method) {
			unknown.Add(1)
			<-r.Context().Done()
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	set, reg, fails := startSet(t, ServerConfig{Name: "old", URL: srv.URL + "/mcp", StartupTimeout: 4 * time.Second})
	if st := statusOf(t, set, "old"); st.State != StateReady {
		t.Fatalf("status %+v", st)
	}
	if r := call(t, reg, nil, "old__echo", map[string]any{"text": "late"}); r.Output.Text != "echo: late" {
		t.Errorf("echo: %+v", r.Output)
	}
	if unknown.Load() != 0 || len(fails.list()) > 0 {
		t.Errorf("%d requests of other methods, failures %q", unknown.Load(), fails.list())
	}
}
