package workspace

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// twoHunks changes line 2 and line 19 of a 20-line file: far enough apart
// for two hunks.
func twoHunks() FileChange {
	var old, neu []string
	for i := 1; i <= 20; i++ {
		old = append(old, fmt.Sprintf("line %d\n", i))
		switch i {
		case 2:
			neu = append(neu, "LINE 2\n")
		case 19:
			neu = append(neu, "line 19\n", "inserted\n")
		default:
			neu = append(neu, fmt.Sprintf("line %d\n", i))
		}
	}
	return FileChange{Kind: Update, Path: "/w/a.txt", OldContent: []byte(strings.Join(old, "")), NewContent: []byte(strings.Join(neu, ""))}
}

func TestHunksFollowTheDiff(t *testing.T) {
	c := twoHunks()
	if n := c.HunkCount(); n != 2 {
		t.Fatalf("HunkCount = %d, want 2", n)
	}
	if got := strings.Count(c.Diff("/w"), "\n@@ "); got != 2 {
		t.Fatalf("the diff has %d hunks:\n%s", got, c.Diff("/w"))
	}
	parts := c.HunkDiffs("/w")
	if len(parts) != 2 || !strings.HasPrefix(parts[0], "--- a/a.txt\n+++ b/a.txt\n@@ -1,5 +1,5 @@") || !strings.Contains(parts[0], "+LINE 2") ||
		!strings.Contains(parts[1], "+inserted") || strings.Contains(parts[1], "LINE 2") {
		t.Fatalf("hunk diffs %q", parts)
	}
	// Each hunk's text is the diff's, in its order.
	body := strings.TrimPrefix(c.Diff("/w"), "--- a/a.txt\n+++ b/a.txt\n")
	if body != strings.TrimPrefix(parts[0], "--- a/a.txt\n+++ b/a.txt\n")+strings.TrimPrefix(parts[1], "--- a/a.txt\n+++ b/a.txt\n") {
		t.Errorf("the hunks do not make up the diff:\n%s\n%q", c.Diff("/w"), parts)
	}

	first, ok := c.WithHunks(func(i int) bool { return i == 0 }, false)
	if !ok || !strings.Contains(string(first.NewContent), "LINE 2\n") || strings.Contains(string(first.NewContent), "inserted") ||
		string(first.OldContent) != string(c.OldContent) {
		t.Errorf("first hunk only: %q", first.NewContent)
	}
	second, ok := c.WithHunks(func(i int) bool { return i == 1 }, false)
	if !ok || strings.Contains(string(second.NewContent), "LINE 2") || !strings.Contains(string(second.NewContent), "line 19\ninserted\nline 20\n") {
		t.Errorf("second hunk only: %q", second.NewContent)
	}
	if _, ok := c.WithHunks(func(int) bool { return false }, true); ok {
		t.Error("every hunk refused, the file still changes")
	}
	if all, ok := c.WithHunks(func(int) bool { return true }, false); !ok || string(all.NewContent) != string(c.NewContent) {
		t.Errorf("every hunk accepted: %q", all.NewContent)
	}
}

func TestHunksOfEachKind(t *testing.T) {
	for _, tc := range []struct {
		name string
		c    FileChange
		n    int
	}{
		{"add", FileChange{Kind: Add, Path: "/w/n", NewContent: []byte("a\nb\n")}, 1},
		{"add empty", FileChange{Kind: Add, Path: "/w/n", NewContent: []byte{}}, 0},
		{"delete", FileChange{Kind: Delete, Path: "/w/n", OldContent: []byte("a\n\n\n\n\n\n\n\n\nb\n")}, 1},
		{"delete empty", FileChange{Kind: Delete, Path: "/w/n", OldContent: []byte{}}, 0},
		{"pure move", FileChange{Kind: Move, Path: "/w/a", NewPath: "/w/b", OldContent: []byte("x\n"), NewContent: []byte("x\n")}, 0},
		{"no newline at the end", FileChange{Kind: Update, Path: "/w/a", OldContent: []byte("a\nb"), NewContent: []byte("a\nb\n")}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if n := tc.c.HunkCount(); n != tc.n {
				t.Fatalf("HunkCount = %d, want %d", n, tc.n)
			}
			if len(tc.c.HunkDiffs("/w")) != tc.n {
				t.Errorf("HunkDiffs %q", tc.c.HunkDiffs("/w"))
			}
			if tc.n == 0 {
				if _, ok := tc.c.WithHunks(func(int) bool { return true }, false); ok {
					t.Error("a change without hunks went ahead though the answer was no")
				}
				if _, ok := tc.c.WithHunks(func(int) bool { return false }, true); !ok {
					t.Error("a change without hunks was dropped though the answer was yes")
				}
			}
		})
	}
}

// Any subset of hunks applies cleanly: all of them give the new content,
// none the old, and a diff of the result has exactly the chosen hunks.
func TestWithHunksAnySubset(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	words := []string{"a\n", "b\n", "c\n", "d\n", "e", "f\n"}
	text := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(words[r.IntN(len(words))])
		}
		return strings.ReplaceAll(b.String(), "ef", "e\nf") // "e" has no newline only at the end
	}
	for range 2000 {
		old := text(r.IntN(40))
		lines := strings.SplitAfter(old, "\n")
		for i := range lines {
			if r.IntN(6) == 0 {
				lines[i] = words[r.IntN(len(words))]
			}
		}
		neu := strings.Join(lines, "")
		if r.IntN(5) == 0 {
			neu += text(3)
		}
		neu = strings.ReplaceAll(neu, "ea", "e\na")
		c := FileChange{Kind: Update, Path: "/w/f", OldContent: []byte(old), NewContent: []byte(neu)}
		n := c.HunkCount()
		mask := r.IntN(1 << min(n, 10))
		pick := func(i int) bool { return i < 10 && mask&(1<<i) != 0 }
		got, ok := c.WithHunks(pick, false)
		want := 0
		for i := range n {
			if pick(i) {
				want++
			}
		}
		switch {
		case want == 0:
			if ok {
				t.Fatalf("no hunk chosen, still a change: %q → %q", old, neu)
			}
			continue
		case !ok:
			t.Fatalf("%d hunks chosen, no change", want)
		}
		if want == n && string(got.NewContent) != neu {
			t.Fatalf("all hunks: %q, want %q", got.NewContent, neu)
		}
		rest := FileChange{Kind: Update, Path: "/w/f", OldContent: got.NewContent, NewContent: []byte(neu)}
		if left := rest.HunkCount(); want < n && left == 0 {
			t.Fatalf("%q → %q with hunks %b of %d: nothing left to do", old, neu, mask, n)
		}
		done := FileChange{Kind: Update, Path: "/w/f", OldContent: []byte(old), NewContent: got.NewContent}
		if done.HunkCount() == 0 {
			t.Fatalf("%q → %q with hunks %b of %d: nothing done", old, neu, mask, n)
		}
	}
}
