package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

func TestListDir(t *testing.T) {
	env, st := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{
		"b.go":          "",
		"a/x.go":        "",
		"a/deep/y.go":   "",
		".git/HEAD":     "",
		".gitignore":    "a/\n",
		"ünïcode/日本.md": "",
	})
	if err := os.Symlink("a", filepath.Join(env.Cwd, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("loop", filepath.Join(env.Cwd, "loop")); err != nil {
		t.Fatal(err)
	}
	st.Open(workspace.Doc{Path: filepath.Join(env.Cwd, "a", "new.go"), Text: "package a\n"})
	head := "Absolute path: " + env.Cwd + "\n"
	tests := []struct {
		name   string
		args   map[string]any
		want   string
		failed bool
		limits OutputLimits
	}{
		{name: "default depth", args: map[string]any{}, want: head + ".git/\n.gitignore\na/\n  deep/\n  new.go (unsaved)\n  x.go\nb.go\nlink@\nloop@\nünïcode/\n  日本.md"},
		{name: "depth 1", args: map[string]any{"depth": 1}, want: head + ".git/\n.gitignore\na/\nb.go\nlink@\nloop@\nünïcode/"},
		{name: "depth 3", args: map[string]any{"dir_path": "a", "depth": 3}, want: "Absolute path: " + filepath.Join(env.Cwd, "a") + "\ndeep/\n  y.go\nnew.go (unsaved)\nx.go"},
		{name: "offset and limit", args: map[string]any{"depth": 1, "offset": 2, "limit": 2}, want: head + ".gitignore\na/\n[Showed entries 2-3 of 7 (stopped at limit=2). Call list_dir with offset=4 for more, or list a subdirectory.]"},
		{name: "output cap", args: map[string]any{"depth": 1}, limits: OutputLimits{MaxLines: 3}, want: head + ".git/\n.gitignore\n[Showed entries 1-2 of 7 (stopped at the output limit of 3 lines). Call list_dir with offset=3 for more, or list a subdirectory.]"},
		{name: "past the end", args: map[string]any{"depth": 1, "offset": 8}, failed: true, want: "list_dir: offset 8 is past the last entry (. has 7 entries at depth 1)"},
		{name: "empty", args: map[string]any{"dir_path": "a/deep/y.go"}, failed: true, want: "list_dir: a/deep/y.go is not a directory; use read_file to read it"},
		{name: "missing", args: map[string]any{"dir_path": "nope"}, failed: true, want: "list_dir: nope: no such file or directory"},
		{name: "symlink loop", args: map[string]any{"dir_path": "loop"}, failed: true, want: "list_dir: loop: symlink loop"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := *env
			e.Limits = tc.limits
			out := callTool(t, ListDir{}, &e, tc.args)
			if out.Failed != tc.failed || out.Text != tc.want {
				t.Errorf("got (failed=%v)\n%s\nwant\n%s", out.Failed, out.Text, tc.want)
			}
		})
	}
	if err := os.Mkdir(filepath.Join(env.Cwd, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	if out := callTool(t, ListDir{}, env, map[string]any{"dir_path": "empty"}); out.Text != "Absolute path: "+filepath.Join(env.Cwd, "empty")+"\n(empty directory)" {
		t.Errorf("empty: %q", out.Text)
	}
}
