package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// TestHiddenFolderIsNotRead: the folder agent-ls hides (the MCP servers'
// OAuth tokens) is out of reach of every file tool: read_file and
// view_image refuse it, by path and through a link in the workspace;
// list_dir, glob and grep_files neither list nor read what is in it, from
// above it or through a link; naming it is an error.
func TestHiddenFolderIsNotRead(t *testing.T) {
	env, _ := testEnv(t)
	state, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	hidden := filepath.Join(state, "agent-ls", "mcp-auth")
	const secret = "sk-token-7f3c"
	writeFiles(t, state, map[string]string{
		"agent-ls/mcp-auth/docs.json": `{"access_token":"` + secret + `"}`,
		"agent-ls/sessions/s.jsonl":   "kept",
	})
	writeFiles(t, env.Cwd, map[string]string{"main.go": "package main\n"})
	if err := os.Symlink(filepath.Join(hidden, "docs.json"), filepath.Join(env.Cwd, "token.json")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(hidden, filepath.Join(env.Cwd, "auth")); err != nil {
		t.Fatal(err)
	}
	env.Boundary = env.Boundary.WithOwn([]policy.OwnPath{{Path: hidden, What: "the MCP servers' OAuth tokens", Hidden: true}})

	refused := func(name string, out Output) {
		t.Helper()
		if !out.Failed || !strings.Contains(out.Text, "agent-ls keeps the MCP servers' OAuth tokens from the model") || strings.Contains(out.Text, secret) {
			t.Errorf("%s: %+v", name, out)
		}
	}
	refused("read_file by path", callTool(t, ReadFile{}, env, map[string]any{"file_path": filepath.Join(hidden, "docs.json")}))
	refused("read_file through a link", callTool(t, ReadFile{}, env, map[string]any{"file_path": "token.json"}))
	refused("read_file through a linked folder", callTool(t, ReadFile{}, env, map[string]any{"file_path": "auth/docs.json"}))
	refused("view_image", callTool(t, ViewImage{}, env, map[string]any{"path": filepath.Join(hidden, "docs.json")}))
	refused("list_dir of it", callTool(t, ListDir{}, env, map[string]any{"dir_path": hidden}))
	refused("grep_files in it", callTool(t, GrepFiles{}, env, map[string]any{"pattern": "token", "path": hidden}))
	refused("glob in it", callTool(t, Glob{}, env, map[string]any{"pattern": "*", "path": hidden}))

	for name, out := range map[string]Output{
		"list_dir from above":  callTool(t, ListDir{}, env, map[string]any{"dir_path": state, "depth": 5}),
		"glob from above":      callTool(t, Glob{}, env, map[string]any{"pattern": "**/*.json", "path": state}),
		"glob into it":         callTool(t, Glob{}, env, map[string]any{"pattern": "agent-ls/mcp-auth/*", "path": state}),
		"grep from above":      callTool(t, GrepFiles{}, env, map[string]any{"pattern": "access_token", "path": state}),
		"grep the workspace":   callTool(t, GrepFiles{}, env, map[string]any{"pattern": "access_token"}),
		"list the workspace":   callTool(t, ListDir{}, env, map[string]any{"dir_path": ".", "depth": 3}),
		"glob the workspace":   callTool(t, Glob{}, env, map[string]any{"pattern": "**/*.json"}),
		"grep with a filename": callTool(t, GrepFiles{}, env, map[string]any{"pattern": "sk-token", "path": state, "files_only": true}),
	} {
		if strings.Contains(out.Text, secret) || strings.Contains(out.Text, "access_token") || strings.Contains(out.Text, "mcp-auth/docs.json") {
			t.Errorf("%s reaches into the hidden folder:\n%s", name, out.Text)
		}
	}
	if out := callTool(t, ListDir{}, env, map[string]any{"dir_path": state, "depth": 5}); !strings.Contains(out.Text, "s.jsonl") {
		t.Errorf("list_dir leaves out what is not hidden:\n%s", out.Text)
	}
}
