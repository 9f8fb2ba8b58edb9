package search

import "testing"

func TestGlobRegexp(t *testing.T) {
	tests := []struct {
		glob  string
		match []string
		miss  []string
	}{
		{"**/*.go", []string{"a.go", "x/y/a.go"}, []string{"a.go/x", "a.gox"}},
		{"a/**", []string{"a/b", "a/b/c"}, []string{"a", "ab/c"}},
		{"a/**/b", []string{"a/b", "a/x/b", "a/x/y/b"}, []string{"a/xb"}},
		{"*.{ts,tsx}", []string{"x.ts", "x.tsx"}, []string{"x.t", "d/x.ts"}},
		{"[!a]?.txt", []string{"bc.txt"}, []string{"ab.txt", "b/c.txt"}},
		{`\*.md`, []string{"*.md"}, []string{"x.md"}},
		{"ünï*", []string{"ünïcode"}, []string{"unicode"}},
	}
	for _, tc := range tests {
		re, err := compileGlob(tc.glob)
		if err != nil {
			t.Fatalf("%s: %v", tc.glob, err)
		}
		for _, m := range tc.match {
			if !re.MatchString(m) {
				t.Errorf("%s should match %s", tc.glob, m)
			}
		}
		for _, m := range tc.miss {
			if re.MatchString(m) {
				t.Errorf("%s should not match %s", tc.glob, m)
			}
		}
	}
}
