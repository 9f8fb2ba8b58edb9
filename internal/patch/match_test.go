package patch

import (
	"reflect"
	"strings"
	"testing"
)

func TestMatcherFind(t *testing.T) {
	lines := func(s string) []string { return strings.Split(s, "|") }
	tests := []struct {
		name    string
		file    string
		pattern string
		seek    seek
		want    int
		amb     []int
	}{
		{name: "exact", file: "foo|bar|baz", pattern: "bar|baz", want: 1},
		{name: "first match in file order", file: "a|x|a|x", pattern: "a|x", want: 0},
		{name: "search starts at from", file: "a|x|a|x", pattern: "a|x", seek: seek{from: 1}, want: 2},
		{name: "not found", file: "a|b", pattern: "c", want: -1},
		{name: "longer than file", file: "a", pattern: "a|a|a", want: -1},
		{name: "longer than what is left", file: "a|b|c", pattern: "b|c", seek: seek{from: 2}, want: -1},
		{name: "empty pattern matches at from", file: "a|b", pattern: "", seek: seek{from: 1}, want: 1},
		{name: "trailing whitespace", file: "foo   |bar\t\t", pattern: "foo|bar", want: 0},
		{name: "surrounding whitespace", file: "    foo   |   bar\t", pattern: "foo|bar", want: 0},
		{name: "unicode punctuation", file: "x|a \u2013 b|\u201cq\u201d|\u2018s\u2019|n\u00a0b", pattern: "a - b|\"q\"|'s'|n b", want: 1},
		{name: "exact beats a nearer loose match", file: "  a|b|a", pattern: "a", want: 2},
		{name: "rarest line anchors", file: "}|}|x|}|y|}", pattern: "}|y", want: 3},
		{name: "end of file first", file: "e|f|e|f", pattern: "e|f", seek: seek{eof: true}, want: 2},
		{name: "end of file, loosely", file: "e|f|e | f ", pattern: "e|f", seek: seek{eof: true}, want: 2},
		{name: "end of file falls back to a search", file: "e|f|g", pattern: "e|f", seek: seek{eof: true}, want: 0},
		{name: "end of file not before from", file: "e|f", pattern: "f", seek: seek{eof: true, from: 2}, want: -1},
		{name: "unique: single match far from hint", file: "a|b|c|d", pattern: "c", seek: seek{unique: true, hint: 0}, want: 2},
		{name: "unique: hint picks among several", file: "a|b|a|b", pattern: "a|b", seek: seek{unique: true, hint: 2}, want: 2},
		{name: "unique: ambiguous", file: "a|b|a|b|a|b", pattern: "a|b", seek: seek{unique: true, hint: 5}, want: -1, amb: []int{0, 2}},
		{name: "unique: hint before from is ignored", file: "a|b|a|b|a|b", pattern: "a|b", seek: seek{unique: true, from: 1, hint: 0}, want: -1, amb: []int{2, 4}},
		{name: "unique: an exact match wins over a loose one at the hint", file: " a|a", pattern: "a", seek: seek{unique: true, hint: 0}, want: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var pattern []string
			if tt.pattern != "" {
				pattern = lines(tt.pattern)
			}
			got, amb := newMatcher(lines(tt.file)).find(pattern, tt.seek)
			if got != tt.want || !reflect.DeepEqual(amb, tt.amb) {
				t.Fatalf("find = %d, %v; want %d, %v", got, amb, tt.want, tt.amb)
			}
		})
	}
}

func TestFoldPunct(t *testing.T) {
	tests := map[string]string{
		"plain ascii":          "plain ascii",
		"caf\u00e9 na\u00efve": "caf\u00e9 na\u00efve",
		"\u2010\u2011\u2012\u2013\u2014\u2015\u2212": "-------",
		"\u2018\u2019\u201a\u201b":                   "''''",
		"\u201c\u201d\u201e\u201f":                   `""""`,
		"a\u00a0\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u202f\u205f\u3000b": "a             b",
	}
	for in, want := range tests {
		if got := foldPunct(in); got != want {
			t.Errorf("foldPunct(%q) = %q, want %q", in, got, want)
		}
	}
}

// The index must give the same answers as a plain scan.
func TestMatcherAgreesWithScan(t *testing.T) {
	file := strings.Split("a|b| a|c|a |b|c|a|b|\u2013|-|c|a|b", "|")
	patterns := [][]string{{"a"}, {"a", "b"}, {"b", "c"}, {"-"}, {"c", "a", "b"}, {"a", "b", "c"}, {"z"}}
	m := newMatcher(file)
	for _, p := range patterns {
		for from := 0; from <= len(file); from++ {
			got, _ := m.find(p, seek{from: from})
			if want := scan(file, p, from); got != want {
				t.Errorf("find(%q, from %d) = %d, scan says %d", p, from, got, want)
			}
		}
	}
}

// scan is Codex's seek_sequence, written the obvious way.
func scan(lines, pattern []string, from int) int {
	for p := range numPasses {
		for s := from; s+len(pattern) <= len(lines); s++ {
			ok := true
			for i := range pattern {
				if p.key(lines[s+i]) != p.key(pattern[i]) {
					ok = false
					break
				}
			}
			if ok {
				return s
			}
		}
	}
	return -1
}
