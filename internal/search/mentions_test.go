package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func touchFiles(t testing.TB, root string, files ...string) {
	t.Helper()
	for _, f := range files {
		p := filepath.Join(root, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// names lists the entries relative to root, folders with a trailing /.
func names(root string, es []Entry) string {
	var out []string
	for _, e := range es {
		r, _ := filepath.Rel(root, e.Abs)
		r = filepath.ToSlash(r)
		if e.Dir {
			r += "/"
		}
		out = append(out, r)
	}
	return strings.Join(out, " ")
}

func TestFileIndexFind(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	touchFiles(t, root, ".gitignore", "src/main.go", "src/main_test.go", "src/util/strings.go", "docs/readme.md",
		"build/main.go", ".hidden/main.go", "cmd/tool/domain.go", "README.md")
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x := &FileIndex{}
	ctx := context.Background()
	cases := []struct {
		query string
		limit int
		want  string
	}{
		{"main.go", 10, "src/main.go cmd/tool/domain.go src/main_test.go"},
		{"main", 2, "src/main.go src/main_test.go"},
		{"MAIN", 1, "src/main.go"},
		{"util", 10, "src/util/ src/util/strings.go"},
		{"smg", 1, "src/main.go"},
		{"src/ut/str", 10, "src/util/strings.go"},
		{"readme", 10, "README.md docs/readme.md"},
		{"zzz", 10, ""},
		{"build", 10, ""}, // ignored, as .hidden is
	}
	for _, c := range cases {
		if got := names(root, x.Find(ctx, []string{root}, c.query, c.limit)); got != c.want {
			t.Errorf("Find(%q, %d) = %q, want %q", c.query, c.limit, got, c.want)
		}
	}
	if got := x.Find(ctx, []string{root}, "", 3); len(got) != 3 {
		t.Errorf("an empty query lists %v", got)
	}

	// Changes reach the list at once.
	touchFiles(t, root, "src/fresh/newfile.go", "build/newbuild.go")
	x.Changed(filepath.Join(root, "src/fresh/newfile.go"), filepath.Join(root, "build/newbuild.go"))
	if got := names(root, x.Find(ctx, []string{root}, "newfile", 10)); got != "src/fresh/newfile.go" {
		t.Errorf("after a create: %q", got)
	}
	if got := names(root, x.Find(ctx, []string{root}, "fresh", 10)); got != "src/fresh/ src/fresh/newfile.go" {
		t.Errorf("the new folder: %q", got)
	}
	if got := names(root, x.Find(ctx, []string{root}, "newbuild", 10)); got != "" {
		t.Errorf("an ignored new file is listed: %q", got)
	}
	if err := os.RemoveAll(filepath.Join(root, "src", "util")); err != nil {
		t.Fatal(err)
	}
	x.Changed(filepath.Join(root, "src", "util"))
	if got := names(root, x.Find(ctx, []string{root}, "strings", 10)); got != "" {
		t.Errorf("after a delete: %q", got)
	}
	// A new ignore rule walks the root again.
	if err := os.WriteFile(filepath.Join(root, ".gitignore"), []byte("build/\ndocs/\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	x.Changed(filepath.Join(root, ".gitignore"))
	if got := names(root, x.Find(ctx, []string{root}, "readme", 10)); got != "README.md" {
		t.Errorf("after .gitignore changed: %q", got)
	}
}

// Two roots answer together, each entry under its own root.
func TestFileIndexRoots(t *testing.T) {
	one, two := t.TempDir(), t.TempDir()
	touchFiles(t, one, "a/config.go")
	touchFiles(t, two, "b/config.go")
	x := &FileIndex{}
	got := x.Find(context.Background(), []string{one, two}, "config", 10)
	if len(got) != 2 || got[0].Abs != filepath.Join(one, "a", "config.go") || got[1].Abs != filepath.Join(two, "b", "config.go") {
		t.Errorf("Find over two roots = %v", got)
	}
}

func TestFuzzyScore(t *testing.T) {
	for _, c := range []struct{ better, worse, query string }{
		{"src/main.go", "src/domain.go", "main"},
		{"main.go", "src/main.go", "main"},
		{"lsp/server.go", "lsp/sessions.go", "serv"},
		{"internal/search/glob.go", "internal/lsp/globals_test.go", "glob"},
	} {
		b, w := fuzzyScore(c.better, c.query), fuzzyScore(c.worse, c.query)
		if b <= w {
			t.Errorf("%q: %s scores %d, not above %s's %d", c.query, c.better, b, c.worse, w)
		}
	}
	if s := fuzzyScore("abc", "acb"); s >= 0 {
		t.Errorf("out of order matched: %d", s)
	}
}

// TestFileIndexFindSoon: while a root's first walk goes on, FindSoon
// answers from what it has listed so far and says the answer is not
// complete; once the walk is done the answer is whole.
func TestFileIndexFindSoon(t *testing.T) {
	root := t.TempDir()
	names := []string{"a/sub/zz/late_match.go"}
	for i := range 3000 {
		names = append(names, fmt.Sprintf("a/early_%04d.go", i))
	}
	touchFiles(t, root, names...)
	release := make(chan struct{})
	late := filepath.Join(root, "a", "sub", "zz")
	x := &FileIndex{Skip: func(abs string, _ bool) bool {
		if abs == late {
			<-release // the walk stops here until the test goes on
		}
		return false
	}}
	ctx := context.Background()
	// The walk shows its first entries soon (a busy machine may take a
	// few tries); the answer is never complete while it waits.
	var found []Entry
	complete := false
	for deadline := time.Now().Add(10 * time.Second); len(found) < 5 && !complete && time.Now().Before(deadline); {
		start := time.Now()
		found, complete = x.FindSoon(ctx, []string{root}, "early", 5, 50*time.Millisecond)
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("FindSoon took %v", d)
		}
	}
	if complete || len(found) != 5 {
		t.Errorf("during the walk: %d entries, complete %v; want 5 from the partial list, not complete", len(found), complete)
	}
	if found, _ := x.FindSoon(ctx, []string{root}, "late_match", 5, 0); len(found) != 0 {
		t.Errorf("the walk has not listed late_match.go yet, but it was found: %v", found)
	}
	close(release)
	found = x.Find(ctx, []string{root}, "late_match", 5)
	if len(found) != 1 || found[0].Abs != filepath.Join(late, "late_match.go") {
		t.Errorf("after the walk: %v", found)
	}
	if found, complete := x.FindSoon(ctx, []string{root}, "early", 5000, 0); !complete || len(found) != 3000 {
		t.Errorf("after the walk: %d entries, complete %v; want 3000, complete", len(found), complete)
	}
}
