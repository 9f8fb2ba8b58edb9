package tools

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

func TestGlob(t *testing.T) {
	env, st := grepTree(t)
	st.Open(workspace.Doc{Path: filepath.Join(env.Cwd, "new/unsaved.go"), Text: "package x\n"})
	st.Open(workspace.Doc{Path: filepath.Join(env.Cwd, "build/unsaved.go"), Text: "package x\n"})
	if err := os.Symlink(env.Cwd, filepath.Join(env.Cwd, "sub", "loop")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name   string
		args   map[string]any
		want   string
		failed bool
		limits OutputLimits
	}{
		{name: "name anywhere", args: map[string]any{"pattern": "*.go"}, want: "a.go\nb.go\nmulti.go\nnew/unsaved.go\nnonl.go\nregex.go\nünïcode/日本.go"},
		{name: "doublestar", args: map[string]any{"pattern": "**/*.txt"}, want: "crlf.txt\nother/rootonly.txt\nsub/important.txt"},
		{name: "literal directory", args: map[string]any{"pattern": "sub/*"}, want: "sub/build\nsub/important.txt"},
		{name: "alternation and class", args: map[string]any{"pattern": "**/[ab].{go,md}"}, want: "a.go\nb.go"},
		{name: "under path", args: map[string]any{"pattern": "**", "path": "docs"}, want: "docs/a/hand.md"},
		{name: "ignored directory by literal prefix", args: map[string]any{"pattern": "build/*.go"}, want: "No files found."},
		{name: "hidden left out", args: map[string]any{"pattern": "**/h.go"}, want: "No files found."},
		{name: "limit", args: map[string]any{"pattern": "*.go", "limit": 2}, want: "a.go\nb.go\n[Showed 2 of 7 files (stopped at limit=2); 5 left out. Use a narrower pattern or path.]"},
		{name: "output cap", args: map[string]any{"pattern": "*.go"}, limits: OutputLimits{MaxLines: 1}, want: "a.go\n[Showed 1 of 7 files (stopped at the output limit of 1 lines); 6 left out. Use a narrower pattern or path.]"},
		{name: "not a directory", args: map[string]any{"pattern": "*", "path": "a.go"}, failed: true, want: "glob: a.go is not a directory"},
		{name: "missing path", args: map[string]any{"pattern": "*", "path": "nope"}, failed: true, want: "glob: nope: no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := *env
			e.Limits = tc.limits
			out := callTool(t, Glob{}, &e, tc.args)
			if out.Failed != tc.failed || out.Text != tc.want {
				t.Errorf("got (failed=%v)\n%s\nwant\n%s", out.Failed, out.Text, tc.want)
			}
		})
	}
}
