package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

func grepTree(t *testing.T) (*Env, *workspace.Store) {
	env, st := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{
		".gitignore":         "*.log\nbuild/\n/rootonly.txt\n!keep.log\ndocs/**/gen_*.md\n",
		"a.go":               "package a\n// TODO: first\nfunc A() {}\n",
		"b.go":               "package b\n\n// todo lower\n// TODO: second\n",
		"app.log":            "TODO in a log\n",
		"keep.log":           "TODO kept log\n",
		"rootonly.txt":       "TODO root only\n",
		"other/rootonly.txt": "TODO not at the root\n",
		"build/out.go":       "TODO built\n",
		"sub/build":          "TODO a file named build is not a directory\n",
		"sub/.gitignore":     "*.txt\n!important.txt\n",
		"sub/x.txt":          "TODO sub txt\n",
		"sub/important.txt":  "TODO important\n",
		"sub/deep/y.txt":     "TODO deep txt\n",
		"docs/a/gen_x.md":    "TODO generated\n",
		"docs/a/hand.md":     "TODO handwritten\n",
		".hidden/h.go":       "TODO hidden\n",
		".env":               "TODO hidden file\n",
		"vendor/.ignore":     "*\n",
		"vendor/v.go":        "TODO vendored\n",
		"bin.dat":            "TODO\x00binary\n",
		"ünïcode/日本.go":      "TODO ünï\n",
		"crlf.txt":           "x\r\nTODO crlf\r\n",
		"nonl.go":            "TODO last line without newline",
		"regex.go":           "foo123bar\nfoobar\n",
		"multi.go":           "start\nend\n",
	})
	return env, st
}

func TestGrepFiles(t *testing.T) {
	env, st := grepTree(t)
	st.Open(workspace.Doc{Path: filepath.Join(env.Cwd, "a.go"), Text: "package a\n// TODO: edited in the editor\n", Dirty: true})
	st.Open(workspace.Doc{Path: filepath.Join(env.Cwd, "new/unsaved.go"), Text: "// TODO: only in the editor\n"})
	st.Open(workspace.Doc{Path: filepath.Join(env.Cwd, "build/unsaved.go"), Text: "// TODO: ignored, only in the editor\n"})

	all := strings.Join([]string{
		"a.go:2: // TODO: edited in the editor",
		"b.go:4: // TODO: second",
		"crlf.txt:2: TODO crlf",
		"docs/a/hand.md:1: TODO handwritten",
		"keep.log:1: TODO kept log",
		"new/unsaved.go:1: // TODO: only in the editor",
		"nonl.go:1: TODO last line without newline",
		"other/rootonly.txt:1: TODO not at the root",
		"sub/build:1: TODO a file named build is not a directory",
		"sub/important.txt:1: TODO important",
		"ünïcode/日本.go:1: TODO ünï",
	}, "\n")
	tests := []struct {
		name   string
		args   map[string]any
		want   string
		failed bool
		limits OutputLimits
	}{
		{name: "ignore rules, editor view, sorted", args: map[string]any{"pattern": "TODO"}, want: all},
		{name: "case insensitive", args: map[string]any{"pattern": "todo lower|todo: SECOND", "case_sensitive": false}, want: "b.go:3: // todo lower\nb.go:4: // TODO: second"},
		{name: "case sensitive by default", args: map[string]any{"pattern": "todo"}, want: "b.go:3: // todo lower"},
		{name: "include by name", args: map[string]any{"pattern": "TODO", "include": "*.{md,txt}"}, want: "crlf.txt:2: TODO crlf\ndocs/a/hand.md:1: TODO handwritten\nother/rootonly.txt:1: TODO not at the root\nsub/important.txt:1: TODO important"},
		{name: "include by path", args: map[string]any{"pattern": "TODO", "include": "sub/**"}, want: "sub/build:1: TODO a file named build is not a directory\nsub/important.txt:1: TODO important"},
		{name: "sub path", args: map[string]any{"pattern": "TODO", "path": "sub"}, want: "sub/build:1: TODO a file named build is not a directory\nsub/important.txt:1: TODO important"},
		{name: "one file", args: map[string]any{"pattern": "TODO", "path": "sub/important.txt"}, want: "sub/important.txt:1: TODO important"},
		{name: "explicit ignored dir is searched", args: map[string]any{"pattern": "TODO", "path": "build"}, want: "build/out.go:1: TODO built\nbuild/unsaved.go:1: // TODO: ignored, only in the editor"},
		{name: "regex", args: map[string]any{"pattern": `^foo\d+bar$`}, want: "regex.go:1: foo123bar"},
		{name: "regex without literal", args: map[string]any{"pattern": `[a-z]\d{3}[a-z]`}, want: "regex.go:1: foo123bar"},
		{name: "no match across lines", args: map[string]any{"pattern": `start\s+end`}, want: "No matches found."},
		{name: "anchors are per line", args: map[string]any{"pattern": `^end$`}, want: "multi.go:2: end"},
		{name: "files only", args: map[string]any{"pattern": "TODO", "files_only": true, "limit": 3}, want: "a.go\nb.go\ncrlf.txt\n[Showed 3 of at least 3 matching files in at least 3 files (stopped at limit=3; the search stopped there, in path order, and did not count the rest). Narrow `path` or `include`, make the pattern more specific, or raise `limit` (at most 2000).]"},
		{name: "limit", args: map[string]any{"pattern": "TODO", "limit": 2}, want: "a.go:2: // TODO: edited in the editor\nb.go:4: // TODO: second\n[Showed 2 of at least 2 matching lines in at least 2 files (stopped at limit=2; the search stopped there, in path order, and did not count the rest). Narrow `path` or `include`, make the pattern more specific, or raise `limit` (at most 2000).]"},
		{name: "output cap", args: map[string]any{"pattern": "TODO"}, limits: OutputLimits{MaxLines: 1}, want: "a.go:2: // TODO: edited in the editor\n[Showed 1 of 11 matching lines in 11 files (stopped at the output limit of 1 lines); 10 left out. Narrow `path` or `include`, make the pattern more specific, or raise `limit` (at most 2000).]"},
		{name: "empty result", args: map[string]any{"pattern": "NOTHING_MATCHES_THIS"}, want: "No matches found."},
		{name: "bad regex", args: map[string]any{"pattern": "a(b"}, failed: true, want: "grep_files: invalid pattern: error parsing regexp: missing closing ): `a(b`"},
		{name: "missing path", args: map[string]any{"pattern": "x", "path": "nope"}, failed: true, want: "grep_files: nope: no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := *env
			e.Limits = tc.limits
			out := callTool(t, GrepFiles{}, &e, tc.args)
			if out.Failed != tc.failed || out.Text != tc.want {
				t.Errorf("got (failed=%v)\n%s\nwant (failed=%v)\n%s", out.Failed, out.Text, tc.failed, tc.want)
			}
		})
	}
}

func TestGrepFilesPermissionDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: every file is readable")
	}
	env, _ := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"ok.go": "TODO ok\n", "secret.go": "TODO secret\n"})
	if err := os.Chmod(filepath.Join(env.Cwd, "secret.go"), 0); err != nil {
		t.Fatal(err)
	}
	out := callTool(t, GrepFiles{}, env, map[string]any{"pattern": "TODO"})
	want := "ok.go:1: TODO ok\n[Not searched: secret.go (permission denied).]"
	if out.Failed || out.Text != want {
		t.Errorf("got %+v, want %q", out, want)
	}
}

// The search tools read files that are not open from the disk, never
// through the view: a view may reach an editor over the wire.
type countingView struct {
	*workspace.Store
	reads *atomic.Int32
}

func (v countingView) ReadFile(path string) ([]byte, error) {
	v.reads.Add(1)
	return v.Store.ReadFile(path)
}

func TestGrepFilesReadsClosedFilesFromDisk(t *testing.T) {
	env, st := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"a.go": "TODO a\n", "b.go": "TODO b\n"})
	var n atomic.Int32
	env.Files = countingView{Store: st, reads: &n}
	out := callTool(t, GrepFiles{}, env, map[string]any{"pattern": "TODO"})
	if out.Failed || out.Text != "a.go:1: TODO a\nb.go:1: TODO b" || n.Load() != 0 {
		t.Errorf("got %+v after %d reads through the view", out, n.Load())
	}
}

func TestGrepFilesUnreadableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root: every directory is readable; TestGrepFilesPermissionDenied covers unreadable files through the view")
	}
	env, _ := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"ok.go": "TODO ok\n", "locked/x.go": "TODO locked\n"})
	if err := os.Chmod(filepath.Join(env.Cwd, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(env.Cwd, "locked"), 0o755)
	out := callTool(t, GrepFiles{}, env, map[string]any{"pattern": "TODO"})
	if want := "ok.go:1: TODO ok\n[Not searched: locked (permission denied).]"; out.Text != want {
		t.Errorf("got %q, want %q", out.Text, want)
	}
}

func TestGrepFilesSymlinksAndLargeFiles(t *testing.T) {
	env, _ := testEnv(t)
	writeFiles(t, env.Cwd, map[string]string{"d/real.go": "TODO real\n", "big.txt": "TODO big\n" + strings.Repeat("x", 2<<10)})
	for _, l := range [][2]string{{"d", "d/loop"}, {"d/real.go", "file-link.go"}, {"missing", "dangling"}} {
		if err := os.Symlink(filepath.Join(env.Cwd, l[0]), filepath.Join(env.Cwd, l[1])); err != nil {
			t.Fatal(err)
		}
	}
	old := MaxGrepFileSize
	MaxGrepFileSize = 1 << 10
	defer func() { MaxGrepFileSize = old }()
	out := callTool(t, GrepFiles{}, env, map[string]any{"pattern": "TODO"})
	want := "d/real.go:1: TODO real\nfile-link.go:1: TODO real\n[Not searched: big.txt (file too large (2057 bytes, over 1024 bytes)).]"
	if out.Text != want {
		t.Errorf("got\n%s\nwant\n%s", out.Text, want)
	}
}

func TestGrepFilesManyFilesStaysSorted(t *testing.T) {
	env, _ := testEnv(t)
	files := map[string]string{}
	for i := range 300 {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = fmt.Sprintf("one\nneedle %d\nneedle again\n", i)
	}
	writeFiles(t, env.Cwd, files)
	for range 3 {
		out := callTool(t, GrepFiles{}, env, map[string]any{"pattern": "needle", "limit": 5})
		want := "d0/f000.txt:2: needle 0\nd0/f000.txt:3: needle again\nd0/f007.txt:2: needle 7\nd0/f007.txt:3: needle again\nd0/f014.txt:2: needle 14\n[Showed 5 of at least 6 matching lines in at least 3 files (stopped at limit=5; the search stopped there, in path order, and did not count the rest). Narrow `path` or `include`, make the pattern more specific, or raise `limit` (at most 2000).]"
		if out.Text != want {
			t.Fatalf("got\n%s\nwant\n%s", out.Text, want)
		}
	}
}
