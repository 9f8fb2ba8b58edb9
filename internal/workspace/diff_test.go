package workspace

import (
	"strings"
	"testing"
)

func TestFileChangeDiffAndStats(t *testing.T) {
	for _, tc := range []struct {
		name       string
		c          FileChange
		add, del   int
		wantInDiff []string
	}{
		{"update", FileChange{Kind: Update, Path: "/w/a.sql", OldContent: []byte("select 1;\n-- comment\nx\n"), NewContent: []byte("select 1;\nx\n")},
			0, 1, []string{"--- a/a.sql", "+++ b/a.sql", "--- comment"}},
		{"add", FileChange{Kind: Add, Path: "/w/n/new.txt", NewContent: []byte("one\ntwo\n")}, 2, 0, []string{"--- /dev/null", "+++ b/n/new.txt", "+two"}},
		{"delete", FileChange{Kind: Delete, Path: "/w/gone.txt", OldContent: []byte("a\n")}, 0, 1, []string{"+++ /dev/null", "-a"}},
		{"move", FileChange{Kind: Move, Path: "/w/a.txt", NewPath: "/w/b.txt", OldContent: []byte("a\n"), NewContent: []byte("A\n")}, 1, 1, []string{"--- a/a.txt", "+++ b/b.txt"}},
		{"outside", FileChange{Kind: Update, Path: "/etc/x", OldContent: []byte("1\n"), NewContent: []byte("2\n")}, 1, 1, []string{"--- a//etc/x"}},
		{"added line starting with ++", FileChange{Kind: Update, Path: "/w/c", OldContent: []byte("a\n"), NewContent: []byte("a\n++x\n")}, 1, 0, []string{"+++x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			add, del := tc.c.Stats()
			if add != tc.add || del != tc.del {
				t.Errorf("Stats = +%d -%d, want +%d -%d", add, del, tc.add, tc.del)
			}
			d := tc.c.Diff("/w")
			for _, w := range tc.wantInDiff {
				if !strings.Contains(d, w) {
					t.Errorf("diff lacks %q:\n%s", w, d)
				}
			}
		})
	}
	same := FileChange{Kind: Update, Path: "/w/s", OldContent: []byte("x\n"), NewContent: []byte("x\n")}
	if d := same.Diff("/w"); d != "" {
		t.Errorf("no-op diff %q", d)
	}
}
