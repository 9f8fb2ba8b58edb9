package lsp

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// TestWatchedFilesRegistered: a client with a conversation view that can
// register workspace/didChangeWatchedFiles dynamically is asked to watch
// files created and deleted in the workspace (and ignore files changed),
// and what it then reports reaches the mention lists; a client that
// cannot is not asked.
func TestWatchedFilesRegistered(t *testing.T) {
	for _, can := range []bool{true, false} {
		t.Run(map[bool]string{true: "dynamic registration", false: "none"}[can], func(t *testing.T) {
			registered := make(chan json.RawMessage, 2)
			h := newHarness(t, func(_ *Options, c *editor.Config) {
				c.Request = func(_ context.Context, method string, params json.RawMessage) (any, error) {
					if method == protocol.MethodClientRegisterCapability {
						registered <- params
					}
					return nil, nil
				}
			})
			ws := t.TempDir()
			h.initialize(editor.Options{Events: true, WatchedFiles: can, WorkspaceFolders: []string{ws}})
			if !can {
				h.sync()
				select {
				case p := <-registered:
					t.Fatalf("a client without dynamic registration was asked: %s", p)
				case <-time.After(200 * time.Millisecond):
				}
				return
			}
			var p struct {
				Registrations []struct {
					ID              string `json:"id"`
					Method          string `json:"method"`
					RegisterOptions struct {
						Watchers []struct {
							GlobPattern string `json:"globPattern"`
							Kind        int    `json:"kind"`
						} `json:"watchers"`
					} `json:"registerOptions"`
				} `json:"registrations"`
			}
			select {
			case raw := <-registered:
				if err := json.Unmarshal(raw, &p); err != nil {
					t.Fatal(err)
				}
			case <-h.ctx.Done():
				t.Fatal("the server registered no file watchers")
			}
			if len(p.Registrations) != 1 || p.Registrations[0].Method != protocol.MethodWorkspaceDidChangeWatchedFiles {
				t.Fatalf("registrations %+v", p.Registrations)
			}
			var globs []string
			for _, w := range p.Registrations[0].RegisterOptions.Watchers {
				globs = append(globs, w.GlobPattern)
				if w.Kind&(watchCreate|watchDelete) != watchCreate|watchDelete {
					t.Errorf("watcher %s does not report creates and deletes: kind %d", w.GlobPattern, w.Kind)
				}
			}
			if !slices.Contains(globs, "**/*") || !slices.Contains(globs, "**/.gitignore") {
				t.Errorf("watchers %v", globs)
			}
			// What the watcher then reports reaches the agent.
			made := filepath.Join(ws, "made-by-git.go")
			if err := h.ed.Notify(h.ctx, protocol.MethodWorkspaceDidChangeWatchedFiles, map[string]any{"changes": []any{map[string]any{"uri": uri.File(made), "type": 1}}}); err != nil {
				t.Fatal(err)
			}
			h.sync()
			for range 100 {
				h.agent.mu.Lock()
				got := slices.Contains(h.agent.changedFiles, made)
				h.agent.mu.Unlock()
				if got {
					return
				}
				time.Sleep(10 * time.Millisecond)
			}
			t.Errorf("the agent did not learn of %s", made)
		})
	}
}
