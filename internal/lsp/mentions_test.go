package lsp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
)

// CompleteMention answers a file and a folder of the agent's cwd whose
// names hold the query, and remembers what it was asked.
func (a *fakeAgent) CompleteMention(_ context.Context, sessionID, query string, limit int) ([]agent.Mention, bool, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.mentionQueries = append(a.mentionQueries, sessionID+"|"+query)
	if sessionID == "s-nope" {
		return nil, false, agent.ErrUnknownSession
	}
	var out []agent.Mention
	for _, m := range []agent.Mention{{Path: filepath.Join(a.cfg.Cwd, "src", "main.go"), Kind: agent.MentionFile}, {Path: filepath.Join(a.cfg.Cwd, "src"), Kind: agent.MentionFolder}} {
		if strings.Contains(m.Path, query) {
			out = append(out, m)
		}
	}
	return out, query != "still-listing", nil // a folder still being walked
}

func (a *fakeAgent) FilesChanged(paths ...string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.changedFiles = append(a.changedFiles, paths...)
}

func TestCompleteMention(t *testing.T) {
	h := newHarness(t)
	ws := t.TempDir()
	h.initialize(editor.Options{WorkspaceFolders: []string{ws}})
	var res completeMentionResult
	if err := h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"query": "src", "limit": 10}, &res); err != nil {
		t.Fatal(err)
	}
	want := []mentionItem{
		{URI: string(uri.File(filepath.Join(ws, "src", "main.go"))), Kind: "file", Label: "src/main.go"},
		{URI: string(uri.File(filepath.Join(ws, "src"))), Kind: "folder", Label: "src/"},
	}
	if !slices.Equal(res.Items, want) {
		t.Errorf("items %+v, want %+v", res.Items, want)
	}
	// @diagnostics comes first while the query starts it; limit holds.
	if err := h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"sessionId": "s-1", "query": "Dia", "limit": 1}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0] != (mentionItem{Kind: "diagnostics", Label: "diagnostics"}) {
		t.Errorf("items %+v", res.Items)
	}
	// An empty answer is an empty list, not null.
	var raw map[string]any
	if err := h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"query": "zzz"}, &raw); err != nil {
		t.Fatal(err)
	}
	if items, ok := raw["items"].([]any); !ok || len(items) != 0 || raw["incomplete"] == true {
		t.Errorf("no match answers %v", raw)
	}
	// An answer from part of a folder's first listing says so.
	if err := h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"query": "still-listing"}, &raw); err != nil {
		t.Fatal(err)
	}
	if raw["incomplete"] != true {
		t.Errorf("a partial answer is %v", raw)
	}
	err := h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"sessionId": "s-nope", "query": "x"}, nil)
	rpcError(t, err, int64(jsonrpc2.InvalidParams))
	err = h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"query": "x", "limit": -1}, nil)
	rpcError(t, err, int64(jsonrpc2.InvalidParams))
	h.agent.mu.Lock()
	queries := slices.Clone(h.agent.mentionQueries)
	h.agent.mu.Unlock()
	if !slices.Contains(queries, "s-1|Dia") {
		t.Errorf("the agent was asked %v", queries)
	}
}

// TestFilesChangedReachTheAgent: the editor's reports of files created,
// deleted, renamed or changed on disk reach the agent's mention lists.
func TestFilesChangedReachTheAgent(t *testing.T) {
	h := newHarness(t)
	ws := t.TempDir()
	h.initialize(editor.Options{WorkspaceFolders: []string{ws}})
	a, b, c, d := filepath.Join(ws, "a.go"), filepath.Join(ws, "b.go"), filepath.Join(ws, "c.go"), filepath.Join(ws, "d.go")
	notes := []struct {
		method string
		params any
	}{
		{protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{"changes": []any{map[string]any{"uri": uri.File(a), "type": 1}}}},
		{"workspace/didDeleteFiles", map[string]any{"files": []any{map[string]any{"uri": uri.File(b)}}}},
		{"workspace/didRenameFiles", map[string]any{"files": []any{map[string]any{"oldUri": uri.File(c), "newUri": uri.File(d)}}}},
	}
	for _, n := range notes {
		if err := h.ed.Notify(h.ctx, n.method, n.params); err != nil {
			t.Fatal(err)
		}
	}
	h.sync()
	want := []string{a, b, c, d}
	for range 100 {
		h.agent.mu.Lock()
		got := slices.Clone(h.agent.changedFiles)
		h.agent.mu.Unlock()
		slices.Sort(got)
		if slices.Equal(got, want) {
			return
		}
		h.sync()
	}
	t.Errorf("the agent was told %v, want %v", h.agent.changedFiles, want)
}

// TestContextDiagnostics: the diagnostics a context item carries (an
// @diagnostics mention) go with it into the prompt.
func TestContextDiagnostics(t *testing.T) {
	h := newHarness(t)
	ws := t.TempDir()
	h.initialize(editor.Options{WorkspaceFolders: []string{ws}})
	doc := string(uri.File(filepath.Join(ws, "a.go")))
	if err := h.ed.Open(h.ctx, doc, "go", "package a\n\nfunc f() { x }\n"); err != nil {
		t.Fatal(err)
	}
	h.startTurn(map[string]any{"prompt": "fix @diagnostics", "context": []any{map[string]any{
		"uri":   doc,
		"range": map[string]any{"start": map[string]any{"line": 2, "character": 0}, "end": map[string]any{"line": 3, "character": 0}},
		"diagnostics": []any{map[string]any{"range": map[string]any{"start": map[string]any{"line": 2, "character": 11}, "end": map[string]any{"line": 2, "character": 12}},
			"severity": 1, "message": "undefined: x", "source": "compiler"}},
	}}})
	in := h.agent.lastTurn()
	if len(in.Context) != 1 || !slices.Equal(in.Context[0].Diagnostics, []string{"line 3 error: undefined: x (compiler)"}) || in.Context[0].Text != "func f() { x }\n" {
		t.Errorf("context %+v", in.Context)
	}
}

// TestFolderContext: a mentioned folder goes into the prompt as what it
// holds.
func TestFolderContext(t *testing.T) {
	h := newHarness(t)
	ws := t.TempDir()
	h.initialize(editor.Options{WorkspaceFolders: []string{ws}})
	for _, d := range []string{"src/inner", "src/a.go"} {
		p := filepath.Join(ws, d)
		if filepath.Ext(p) == "" {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
		} else if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	h.startTurn(map[string]any{"prompt": "what is in @src", "context": []any{map[string]any{"uri": string(uri.File(filepath.Join(ws, "src")))}}})
	in := h.agent.lastTurn()
	if len(in.Context) != 1 || in.Context[0].Path != filepath.Join(ws, "src") || in.Context[0].Text != "a.go\ninner/\n" {
		t.Errorf("context %+v", in.Context)
	}
}
