package lsp

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"reflect"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

func TestInitializeResultGolden(t *testing.T) {
	h := newHarness(t)
	var got json.RawMessage
	if err := h.ed.Request(h.ctx, protocol.MethodInitialize, map[string]any{
		"processId":    nil,
		"rootUri":      nil,
		"capabilities": map[string]any{},
	}, &got); err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/initialize_result.json")
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(want, &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		var pretty bytes.Buffer
		json.Indent(&pretty, got, "", "  ")
		t.Errorf("initialize result differs from testdata/initialize_result.json:\n%s", pretty.String())
	}
}

func TestPositionEncodingNegotiation(t *testing.T) {
	tests := []struct {
		offered []string
		want    protocol.PositionEncodingKind
	}{
		{nil, "utf-16"},
		{[]string{"utf-16"}, "utf-16"},
		{[]string{"utf-32", "utf-16"}, "utf-16"},
		{[]string{"utf-16", "utf-8"}, "utf-8"},
		{[]string{"utf-8"}, "utf-8"},
	}
	for _, tt := range tests {
		h := newHarness(t)
		res, err := h.ed.Initialize(h.ctx, editor.Options{PositionEncodings: tt.offered})
		if err != nil {
			t.Fatal(err)
		}
		if res.Capabilities.PositionEncoding != tt.want {
			t.Errorf("offered %q: chose %q, want %q", tt.offered, res.Capabilities.PositionEncoding, tt.want)
		}
	}
}

func TestClientCapabilitiesParsed(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{
		Events: true, Approvals: true, Review: true, Progress: true,
		ApplyEdit: true, DocumentChanges: true, ResourceOperations: []string{"create", "rename", "delete"},
		ChangeAnnotations: true, MessageActionItems: true, PositionEncodings: []string{"utf-8"},
		InitializationOptions: map[string]any{"model": "m", "profile": "p", "approvalPolicy": "never", "sandboxMode": "read-only"},
	})
	want := ClientCapabilities{
		ApplyEdit: true, DocumentChanges: true, ResourceOperations: []string{"create", "rename", "delete"},
		ChangeAnnotations: true, WorkDoneProgress: true, MessageActionItems: true,
		AgentEvents: true, AgentApprovals: true, AgentReview: true, PositionEncoding: workspace.UTF8,
	}
	cfg := h.agent.cfg
	if !reflect.DeepEqual(cfg.Client, want) {
		t.Errorf("capabilities = %+v\nwant %+v", cfg.Client, want)
	}
	if cfg.Init != (InitOptions{Model: "m", Profile: "p", ApprovalPolicy: "never", SandboxMode: "read-only"}) {
		t.Errorf("init options = %+v", cfg.Init)
	}
	if cfg.Cwd == "" || cfg.Files == nil || cfg.Frontend == nil {
		t.Errorf("agent config = %+v", cfg)
	}
	if cfg.Files.Encoding() != workspace.UTF8 {
		t.Errorf("store encoding %v", cfg.Files.Encoding())
	}

	// A plain client: nothing is on.
	h2 := newHarness(t)
	h2.initialize(editor.Options{})
	if got := h2.agent.cfg.Client; !reflect.DeepEqual(got, ClientCapabilities{}) {
		t.Errorf("plain client capabilities = %+v", got)
	}
}

func TestInitializeRejectsBadOptions(t *testing.T) {
	h := newHarness(t)
	_, err := h.ed.Initialize(h.ctx, editor.Options{InitializationOptions: map[string]any{"approvalPolicy": "sometimes"}})
	msg := rpcError(t, err, int64(jsonrpc2.InvalidParams))
	if !bytes.Contains([]byte(msg), []byte("approvalPolicy")) {
		t.Errorf("message %q does not name the option", msg)
	}
	_, err = h.ed.Initialize(h.ctx, editor.Options{InitializationOptions: map[string]any{"model": 5}})
	rpcError(t, err, int64(jsonrpc2.InvalidParams))
	// A failed initialize can be retried.
	if _, err := h.ed.Initialize(h.ctx, editor.Options{}); err != nil {
		t.Fatal(err)
	}
}

func TestLifecycle(t *testing.T) {
	h := newHarness(t)
	err := h.ed.Request(h.ctx, methodNewSession, map[string]any{}, nil)
	rpcError(t, err, int64(jsonrpc2.ServerNotInitialized))
	err = h.ed.Request(h.ctx, protocol.MethodShutdown, nil, nil)
	rpcError(t, err, int64(jsonrpc2.ServerNotInitialized))

	h.initialize(editor.Options{})
	_, err = h.ed.Initialize(h.ctx, editor.Options{})
	rpcError(t, err, int64(jsonrpc2.InvalidRequest))

	if err := h.ed.Shutdown(h.ctx); err != nil {
		t.Fatal(err)
	}
	h.agent.mu.Lock()
	closed := h.agent.closed
	h.agent.mu.Unlock()
	if !closed {
		t.Error("shutdown did not close the agent")
	}
	err = h.ed.Request(h.ctx, methodNewSession, map[string]any{}, nil)
	rpcError(t, err, int64(jsonrpc2.InvalidRequest))
	err = h.ed.Shutdown(h.ctx)
	rpcError(t, err, int64(jsonrpc2.InvalidRequest))

	code, err := h.ed.Exit(h.ctx)
	if err != nil || code != 0 {
		t.Errorf("exit after shutdown: code %d, %v; want 0", code, err)
	}
}

func TestExitWithoutShutdown(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	code, err := h.ed.Exit(h.ctx)
	if err != nil || code != 1 {
		t.Errorf("exit without shutdown: code %d, %v; want 1", code, err)
	}
}

func TestExitBeforeInitialize(t *testing.T) {
	h := newHarness(t)
	code, err := h.ed.Exit(h.ctx)
	if err != nil || code != 1 {
		t.Errorf("exit before initialize: code %d, %v; want 1", code, err)
	}
}

func TestConnectionLost(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	h.ed.Disconnect()
	select {
	case <-h.served:
		if h.result.code != 1 {
			t.Errorf("code %d after the editor vanished, want 1", h.result.code)
		}
	case <-h.ctx.Done():
		t.Fatal("Serve did not return after the connection closed")
	}
	h.agent.mu.Lock()
	defer h.agent.mu.Unlock()
	if !h.agent.closed {
		t.Error("the agent was not closed")
	}
}

// TestLanguageCapability: only a client that declares
// experimental.agent.language answers language queries (the agent offers
// the lsp_* tools to no other), in the encoding negotiated.
func TestLanguageCapability(t *testing.T) {
	for _, tc := range []struct {
		caps string
		want bool
		enc  workspace.Encoding
	}{
		{`{"experimental":{"agent":{"events":true,"language":true}},"general":{"positionEncodings":["utf-8","utf-16"]}}`, true, workspace.UTF8},
		{`{"experimental":{"agent":{"events":true,"language":true}}}`, true, workspace.UTF16},
		{`{"experimental":{"agent":{"events":true,"questions":true}}}`, false, workspace.UTF16},
		{`{}`, false, workspace.UTF16},
	} {
		var c protocol.ClientCapabilities
		if err := json.Unmarshal([]byte(tc.caps), &c); err != nil {
			t.Fatal(err)
		}
		caps, err := parseCapabilities(&c)
		if err != nil {
			t.Fatal(err)
		}
		s := &server{caps: caps}
		if enc, ok := s.LanguageEncoding("s1"); ok != tc.want || enc != tc.enc {
			t.Errorf("%s: answers %v in %v, want %v in %v", tc.caps, ok, enc, tc.want, tc.enc)
		}
		if !tc.want {
			if _, err := s.LanguageQuery(context.Background(), &agent.LanguageRequest{Kind: "definition"}); err == nil {
				t.Errorf("%s: a query was sent to a client that did not opt in", tc.caps)
			}
		}
	}
}
