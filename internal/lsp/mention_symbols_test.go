package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// TestCompleteMentionSymbols: @#Name asks the client's language servers
// for the workspace symbols (agent/languageQuery workspaceSymbols) and
// answers those in files as symbol items with their file and range;
// SymbolInformation and WorkspaceSymbol answers both read.
func TestCompleteMentionSymbols(t *testing.T) {
	var mu sync.Mutex
	var asked []map[string]any
	h := newHarness(t, func(_ *Options, c *editor.Config) {
		c.Request = func(_ context.Context, method string, params json.RawMessage) (any, error) {
			if method != methodLanguageQuery {
				return nil, nil
			}
			var p map[string]any
			_ = json.Unmarshal(params, &p)
			mu.Lock()
			asked = append(asked, p)
			mu.Unlock()
			return json.RawMessage(`[
				{"name": "Greet()", "kind": 12, "containerName": "greet", "location": {"uri": "` + string(uri.File(filepath.Join("/ws", "greet.go"))) + `", "range": {"start": {"line": 4, "character": 5}, "end": {"line": 4, "character": 10}}}},
				{"name": "Greeter", "kind": 5, "location": {"uri": "` + string(uri.File(filepath.Join("/ws", "types", "greeter.go"))) + `"}},
				{"name": "GreetRemote", "kind": 12, "location": {"uri": "untitled:Untitled-1", "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}}},
				{"name": "operator ()", "kind": 6, "location": {"uri": "` + string(uri.File(filepath.Join("/ws", "op.cc"))) + `", "range": {"start": {"line": 1, "character": 0}, "end": {"line": 1, "character": 2}}}}
			]`), nil
		}
	})
	h.initialize(editor.Options{Language: true, WorkspaceFolders: []string{"/ws"}})
	var res completeMentionResult
	if err := h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"sessionId": "s-1", "query": "#Gree", "limit": 10}, &res); err != nil {
		t.Fatal(err)
	}
	want := []mentionItem{
		{URI: string(uri.File(filepath.Join("/ws", "greet.go"))), Kind: "symbol", Label: "#Greet", Detail: "greet · greet.go",
			Range: &rangeParam{Start: positionParam{Line: 4, Character: 5}, End: positionParam{Line: 4, Character: 10}}},
		{URI: string(uri.File(filepath.Join("/ws", "types", "greeter.go"))), Kind: "symbol", Label: "#Greeter", Detail: "types/greeter.go"},
	}
	if !slices.EqualFunc(res.Items, want, sameMention) {
		t.Errorf("items %+v, want %+v", res.Items, want)
	}
	mu.Lock()
	if len(asked) != 1 || asked[0]["kind"] != "workspaceSymbols" || asked[0]["query"] != "Gree" || asked[0]["sessionId"] != "s-1" {
		t.Errorf("the client was asked %v", asked)
	}
	mu.Unlock()
	// limit holds.
	if err := h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"query": "#Gree", "limit": 1}, &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Items) != 1 || res.Items[0].Label != "#Greet" {
		t.Errorf("with limit 1: %+v", res.Items)
	}
}

func sameMention(a, b mentionItem) bool {
	ra, rb := a.Range, b.Range
	a.Range, b.Range = nil, nil
	return a == b && (ra == nil) == (rb == nil) && (ra == nil || *ra == *rb)
}

// TestCompleteMentionSymbolsWithoutLanguage: a client that does not
// answer language queries is never asked, and gets no items; one whose
// language servers fail or stay silent gets none either, in time.
func TestCompleteMentionSymbolsWithoutLanguage(t *testing.T) {
	for _, tc := range []struct {
		name     string
		language bool
		answer   func(ctx context.Context) (any, error)
	}{
		{"no opt-in", false, nil},
		{"error", true, func(context.Context) (any, error) {
			return nil, &protocolError{"no language server answers workspace/symbol"}
		}},
		{"silent", true, func(ctx context.Context) (any, error) { <-ctx.Done(); return nil, ctx.Err() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			calls := 0
			h := newHarness(t, func(_ *Options, c *editor.Config) {
				c.Request = func(ctx context.Context, method string, _ json.RawMessage) (any, error) {
					if method != methodLanguageQuery {
						return nil, nil
					}
					mu.Lock()
					calls++
					mu.Unlock()
					return tc.answer(ctx)
				}
			})
			h.initialize(editor.Options{Language: tc.language, WorkspaceFolders: []string{t.TempDir()}})
			start := time.Now()
			var res completeMentionResult
			if err := h.ed.Request(h.ctx, methodCompleteMention, map[string]any{"query": "#Greet"}, &res); err != nil {
				t.Fatal(err)
			}
			if res.Items == nil || len(res.Items) != 0 {
				t.Errorf("items %#v, want []", res.Items)
			}
			if d := time.Since(start); d > mentionSymbolTimeout+time.Second {
				t.Errorf("answered after %v", d)
			}
			mu.Lock()
			defer mu.Unlock()
			if want := map[bool]int{false: 0, true: 1}[tc.language]; calls != want {
				t.Errorf("the client was asked %d times, want %d", calls, want)
			}
		})
	}
}

// protocolError is an error answer of the editor.
type protocolError struct{ msg string }

func (e *protocolError) Error() string { return e.msg }
