package search

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"testing"
)

// FuzzLineMatcher checks that lineMatcher (its literal, literal-set and
// DFA prefilters) reports exactly the lines regexp matches, line by line,
// for any pattern and text. `go test -fuzz FuzzLineMatcher` explores
// beyond the seeds.
func FuzzLineMatcher(f *testing.F) {
	seeds := []string{
		`[A-Z][a-z]+[0-9]{2,}[A-Z]\w*`, `todo|fixme|xxx`, `^\w+$`, `\bab\b`, `(?s).b`, `[^a-z\n]{3}`,
		`\x{FFFD}`, `\pL\pN`, `[kK]`, `ſ|ß`, `σ`, `\r`, `x\nb`, `(?U)a+b`, `kind|sort`, `(?:TODO|FixMe)+`,
		`a*`, `$`, `\B`, `[é\x{212a}]`, `Foo12Bar`,
	}
	for i, p := range seeds {
		f.Add(p, matchCorpus(uint64(i), 20), i%2 == 0)
	}
	f.Add("", []byte("a\n\nb"), true)
	f.Add("k", []byte("\u212a\r\nK\n"), false)
	f.Fuzz(func(t *testing.T, pattern string, data []byte, caseSensitive bool) {
		flags := ""
		if !caseSensitive {
			flags = "(?i)"
		}
		re, err := regexp.Compile(flags + pattern)
		if err != nil {
			return
		}
		// Huge programs make the test slow without finding more.
		if p, err := syntax.Parse(flags+pattern, syntax.Perl); err != nil || len(p.String()) > 200 {
			return
		}
		m, err := newLineMatcher(pattern, caseSensitive)
		if err != nil {
			t.Fatalf("regexp compiles %q, lineMatcher does not: %v", flags+pattern, err)
		}
		want, got := wantLines(re, data), gotLines(m, data)
		if !slices.Equal(got, want) {
			t.Errorf("%s on %q: got %d lines, want %d\n%s", flags+pattern, data, len(got), len(want), firstDiff(got, want))
		}
	})
}
