package tools

import (
	"path/filepath"
	"runtime"
	"testing"
)

// BenchmarkGrepGoroot searches the Go source tree for a literal, the case
// bench/grep.sh compares with ripgrep.
func BenchmarkGrepGoroot(b *testing.B) {
	env := &Env{Cwd: filepath.Join(runtime.GOROOT(), "src"), Files: DiskView{}}
	for _, q := range []grepQuery{
		{Pattern: `func NewReader`, CaseSensitive: true, Limit: 100},
		{Pattern: `func \(\w+ \*\w+\) Read[A-Z]\w*\(`, CaseSensitive: true, Limit: 100},
	} {
		b.Run(q.Pattern, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := grep(b.Context(), env, q); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
