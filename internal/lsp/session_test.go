package lsp

import (
	"encoding/base64"
	"github.com/agent-ls/agent-ls/internal/policy"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
)

func TestNewSession(t *testing.T) {
	h := newHarness(t)
	root := t.TempDir()
	h.initialize(editor.Options{WorkspaceFolders: []string{root, t.TempDir()}})

	var got sessionResult
	if err := h.ed.Request(h.ctx, methodNewSession, map[string]any{}, &got); err != nil {
		t.Fatal(err)
	}
	if got.SessionID == "" || got.Cwd != string(uri.File(root)) || got.Model != "fake-model" ||
		got.ApprovalPolicy != policy.OnRequest || got.SandboxMode != policy.WorkspaceWrite {
		t.Errorf("newSession = %+v", got)
	}
	if opts := h.agent.session(got.SessionID); opts.Cwd != root {
		t.Errorf("session cwd %q, want the first workspace folder %q", opts.Cwd, root)
	}

	other := t.TempDir()
	if err := h.ed.Request(h.ctx, methodNewSession, map[string]any{
		"cwd": string(uri.File(other)), "model": "m2", "approvalPolicy": "never", "sandboxMode": "read-only",
	}, &got); err != nil {
		t.Fatal(err)
	}
	want := agent.SessionOptions{Cwd: other, Model: "m2", ApprovalPolicy: "never", SandboxMode: "read-only"}
	if opts := h.agent.session(got.SessionID); !reflect.DeepEqual(opts, want) {
		t.Errorf("session options %+v, want %+v", opts, want)
	}
	// No params at all is an empty object.
	if err := h.ed.Request(h.ctx, methodNewSession, nil, &got); err != nil {
		t.Fatal(err)
	}

	err := h.ed.Request(h.ctx, methodNewSession, map[string]any{"sandboxMode": "wide-open"}, nil)
	rpcError(t, err, int64(jsonrpc2.InvalidParams))
	err = h.ed.Request(h.ctx, methodNewSession, map[string]any{"cwd": 3}, nil)
	rpcError(t, err, int64(jsonrpc2.InvalidParams))
	err = h.ed.Request(h.ctx, methodNewSession, map[string]any{"cwd": "/nonexistent"}, nil)
	rpcError(t, err, int64(codeRequestFailed))
}

func TestStartTurn(t *testing.T) {
	h := newHarness(t)
	root := t.TempDir()
	h.initialize(editor.Options{WorkspaceFolders: []string{root}})

	// Without a sessionId the turn gets a new session in the workspace.
	first := h.startTurn(map[string]any{"prompt": "hello"})
	if first.SessionID == "" || first.TurnID == "" {
		t.Fatalf("startTurn = %+v", first)
	}
	if h.agent.session(first.SessionID).Cwd != root {
		t.Errorf("implicit session cwd %q", h.agent.session(first.SessionID).Cwd)
	}
	if in := h.agent.lastTurn(); in.Prompt != "hello" {
		t.Errorf("turn input %+v", in)
	}

	tests := []struct {
		name   string
		params any
		code   jsonrpc2.Code
		says   string
	}{
		// While the turn runs prompts wait, up to a limit.
		{"queue full", map[string]any{"sessionId": first.SessionID, "prompt": "queue full"}, codeRequestFailed, "queue is full"},
		{"unknown session", map[string]any{"sessionId": "nope", "prompt": "x"}, jsonrpc2.InvalidParams, "unknown session"},
		{"missing prompt", map[string]any{}, jsonrpc2.InvalidParams, "prompt is required"},
		{"empty prompt", map[string]any{"prompt": "  "}, jsonrpc2.InvalidParams, "prompt must not be empty"},
		{"prompt of the wrong type", map[string]any{"prompt": []int{1}}, jsonrpc2.InvalidParams, "prompt must be a string"},
		{"context of the wrong type", map[string]any{"prompt": "x", "context": "main.go"}, jsonrpc2.InvalidParams, "context must be an array"},
		{"context without uri", map[string]any{"prompt": "x", "context": []any{map[string]any{}}}, jsonrpc2.InvalidParams, "context[0].uri is required"},
		{"context file missing", map[string]any{"prompt": "x", "context": []any{map[string]any{"uri": "file:///no/such/file"}}}, jsonrpc2.InvalidParams, "no such file"},
		{"negative range", map[string]any{"prompt": "x", "context": []any{map[string]any{"uri": "file:///x",
			"range": map[string]any{"start": map[string]int{"line": -1, "character": 0}, "end": map[string]int{"line": 0, "character": 0}}}}}, jsonrpc2.InvalidParams, "negative"},
		{"image of an unsupported scheme", map[string]any{"prompt": "x", "images": []string{"https://example.com/a.png"}}, jsonrpc2.InvalidParams, "images[0]"},
		{"no params", nil, jsonrpc2.InvalidParams, "params are required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := h.ed.Request(h.ctx, methodStartTurn, tt.params, nil)
			if msg := rpcError(t, err, int64(tt.code)); !strings.Contains(msg, tt.says) {
				t.Errorf("message %q does not say %q", msg, tt.says)
			}
		})
	}
}

func TestStartTurnContext(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	dir := t.TempDir()
	onDisk := filepath.Join(dir, "disk.go")
	if err := os.WriteFile(onDisk, []byte("line one\nline two\nline three\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	open := filepath.Join(dir, "open.go")
	if err := os.WriteFile(open, []byte("stale\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := h.ed.Open(h.ctx, string(uri.File(open)), "go", "a😀b\r\nsecond\r\nthird"); err != nil {
		t.Fatal(err)
	}
	rng := func(l1, c1, l2, c2 int) map[string]any {
		return map[string]any{
			"start": map[string]int{"line": l1, "character": c1},
			"end":   map[string]int{"line": l2, "character": c2},
		}
	}
	h.startTurn(map[string]any{"prompt": "explain", "context": []any{
		map[string]any{"uri": string(uri.File(open)), "range": rng(0, 1, 1, 3)},
		map[string]any{"uri": string(uri.File(onDisk)), "range": rng(1, 0, 2, 0)},
		map[string]any{"uri": string(uri.File(onDisk))},
	}})
	got := h.agent.lastTurn().Context
	want := []agent.ContextItem{
		{Path: open, StartLine: 1, EndLine: 2, Text: "😀b\r\nsec"},
		{Path: onDisk, StartLine: 2, EndLine: 2, Text: "line two\n"},
		{Path: onDisk, Text: "line one\nline two\nline three\n"},
	}
	if len(got) != len(want) {
		t.Fatalf("context %+v", got)
	}
	for i := range want {
		if got[i].Path != want[i].Path || got[i].Text != want[i].Text || got[i].StartLine != want[i].StartLine || got[i].EndLine != want[i].EndLine {
			t.Errorf("context[%d] = %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestStartTurnImages(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	png := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	path := filepath.Join(t.TempDir(), "shot.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	const inline = "data:image/gif;base64,R0lGODlhAQABAAAAACw="
	h.startTurn(map[string]any{"prompt": "look", "images": []string{string(uri.File(path)), inline}})
	got := h.agent.lastTurn().Images
	want := []string{"data:image/png;base64," + base64.StdEncoding.EncodeToString(png), inline}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("images %q\nwant %q", got, want)
	}

	text := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(text, []byte("just text"), 0o644)
	err := h.ed.Request(h.ctx, methodStartTurn, map[string]any{"prompt": "x", "images": []string{string(uri.File(text))}}, nil)
	if msg := rpcError(t, err, int64(jsonrpc2.InvalidParams)); !strings.Contains(msg, "not an image") {
		t.Errorf("message %q", msg)
	}
}

func TestInterrupt(t *testing.T) {
	h := newHarness(t)
	h.initialize(editor.Options{})
	turn := h.startTurn(map[string]any{"prompt": "long job"})

	var res map[string]any
	if err := h.ed.Request(h.ctx, methodInterrupt, map[string]any{"sessionId": turn.SessionID, "turnId": turn.TurnID}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res) != 0 {
		t.Errorf("interrupt result %v, want {}", res)
	}
	if k := <-h.agent.interrupted; k != (turnKey{turn.SessionID, turn.TurnID}) {
		t.Errorf("interrupted %v", k)
	}
	// Nothing runs any more: still fine.
	if err := h.ed.Request(h.ctx, methodInterrupt, map[string]any{"sessionId": turn.SessionID}, nil); err != nil {
		t.Errorf("interrupt with nothing running: %v", err)
	}
	// The session is usable again.
	h.startTurn(map[string]any{"sessionId": turn.SessionID, "prompt": "next"})

	err := h.ed.Request(h.ctx, methodInterrupt, map[string]any{"sessionId": "nope"}, nil)
	rpcError(t, err, int64(jsonrpc2.InvalidParams))
	err = h.ed.Request(h.ctx, methodInterrupt, map[string]any{}, nil)
	rpcError(t, err, int64(jsonrpc2.InvalidParams))
}

func TestAgentUnavailable(t *testing.T) {
	h := newHarness(t, func(o *Options, _ *editor.Config) {
		o.NewAgent = func(AgentConfig) (Agent, error) { return nil, os.ErrPermission }
	})
	if _, err := h.ed.Initialize(h.ctx, editor.Options{}); err != nil {
		t.Fatalf("initialize must succeed without an agent: %v", err)
	}
	err := h.ed.Request(h.ctx, methodStartTurn, map[string]any{"prompt": "x"}, nil)
	if msg := rpcError(t, err, int64(codeRequestFailed)); !strings.Contains(msg, "permission denied") {
		t.Errorf("message %q does not say why", msg)
	}
}
