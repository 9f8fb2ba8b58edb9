package search

import (
	"os"
	"testing"
)

// BenchmarkLargeTree walks, globs and greps the tree named by
// $LARGE_REPO (make bench-deps unpacks Linux's source for it), the cases
// bench/treebench compares with rg and fd. Without it, it is skipped.
func BenchmarkLargeTree(b *testing.B) {
	root := os.Getenv("LARGE_REPO")
	if root == "" {
		b.Skip("LARGE_REPO is not set (make bench-deps prints a tree)")
	}
	b.Run("glob **/*.c", func(b *testing.B) {
		g, err := NewGlob("**/*.c")
		if err != nil {
			b.Fatal(err)
		}
		for b.Loop() {
			if _, _, err := g.Find(b.Context(), root, root, noDocs{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, q := range []Query{
		{Pattern: `spin_lock_irqsave`, CaseSensitive: true, Limit: 2000},
		{Pattern: `static int \w+_probe\(`, CaseSensitive: true, Limit: 2000},
		{Pattern: `\w+_lock\(`, CaseSensitive: true, Limit: 2000},
		{Pattern: `mutex_lock`, CaseSensitive: false, Limit: 2000},
	} {
		b.Run(q.Pattern, func(b *testing.B) {
			for b.Loop() {
				if _, err := grepDir(b.Context(), root, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
