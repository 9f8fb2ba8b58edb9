package search

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// The walk's paths are clean whatever the root it is given looks like
// (they are joined to it as they are), and the ignore rules apply to
// them alike.
func TestWalkPathsAreCleanForAnyRoot(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, map[string]string{".gitignore": "/skip.c\n", "a/x.c": "", "skip.c": "", "y.c": ""})
	paths := func(r string, ordered bool) []string {
		opts := walkOptions{Root: r, Base: root}
		var mu sync.Mutex
		var got []string
		add := func(f walkFile) {
			mu.Lock()
			got = append(got, f.Abs)
			mu.Unlock()
		}
		if ordered {
			walkOrdered(context.Background(), opts, func(f walkFile) bool { add(f); return true })
		} else {
			walk(context.Background(), opts, add)
		}
		slices.Sort(got)
		return got
	}
	want := []string{filepath.Join(root, "a", "x.c"), filepath.Join(root, "y.c")}
	for _, r := range []string{root, root + string(filepath.Separator), filepath.Join(root, "a") + string(filepath.Separator) + ".." + string(filepath.Separator) + "." + string(filepath.Separator)} {
		for _, ordered := range []bool{false, true} {
			if got := paths(r, ordered); !slices.Equal(got, want) {
				t.Errorf("root %q (ordered %v): %q, want %q", r, ordered, got, want)
			}
		}
	}
}
