package search

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
)

// matchCorpus generates text with ASCII words and numbers, non-ASCII
// letters (including ones with special case folding), invalid UTF-8,
// CRLF and empty lines.
func matchCorpus(seed uint64, lines int) []byte {
	r := rand.New(rand.NewPCG(seed, 1))
	pieces := []string{
		"Foo12Bar", "todo", "TODO", "FixMe", "xXx", "func", "Read", "ab", "a", "b", "Ab12C",
		"42", "x9", " ", "\t", "_", "-", ".", "(", ")", "*", "\\", "$", "^",
		"é", "É", "ß", "ẞ", "K", "k", "\u212a", "ſ", "S", "σ", "Σ", "ς", "日本", "\u00a0",
		"\xff", "\xc3", "\xe6\x97", "\x80", "\x00", "\r",
		"kind", "\u212aInd", "ſort", "SoRt", "a\u212aD", "AKd", "\xe2", "Σς", "fixme\r", "xx\r",
	}
	var b bytes.Buffer
	for range lines {
		switch r.IntN(10) {
		case 0: // empty line
		case 1:
			b.WriteString("\r")
		default:
			for range r.IntN(12) {
				b.WriteString(pieces[r.IntN(len(pieces))])
			}
			if r.IntN(5) == 0 {
				b.WriteString("\r")
			}
		}
		b.WriteByte('\n')
	}
	if r.IntN(2) == 0 {
		b.WriteString("Ab12Cd tail without newline")
	}
	return b.Bytes()
}

type matchedLine struct {
	n    int
	text string
}

// wantLines matches re against every line of data, the plain way.
func wantLines(re *regexp.Regexp, data []byte) []matchedLine {
	var out []matchedLine
	lines := strings.Split(string(data), "\n")
	if len(data) == 0 || data[len(data)-1] == '\n' {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		l = strings.TrimSuffix(l, "\r")
		if re.MatchString(l) {
			out = append(out, matchedLine{i + 1, l})
		}
	}
	return out
}

func gotLines(m *lineMatcher, data []byte) []matchedLine {
	var out []matchedLine
	m.eachLine(data, func(n int, line []byte) bool {
		out = append(out, matchedLine{n, string(line)})
		return true
	})
	return out
}

// TestLineMatcherAgreesWithRegexp checks that the prefilters (literal and
// DFA) report exactly the lines the regexp matches, line by line.
func TestLineMatcherAgreesWithRegexp(t *testing.T) {
	patterns := []string{
		`[A-Z][a-z]+[0-9]{2,}[A-Z]\w*`,
		`todo|fixme|xxx`,
		`[A-Z][a-z]*\d`,
		`\d+`,
		`a*`,
		`^$`,
		`^`,
		`$`,
		`\s$`,
		`\s`,
		`^\w+$`,
		`\A\w`,
		`\w\z`,
		`\bab\b`,
		`\Bb`,
		`.`,
		`(?s).b`,
		`[^a-z\n]{3}`,
		`\x{FFFD}`,
		`[^\x00-\x7f]`,
		`\pL\pN`,
		`\p{Greek}`,
		`[kK]`,
		`ſ|ß`,
		`é+`,
		`k`,
		`σ`,
		`\r`,
		`[\r\t]`,
		`\x00`,
		`(a|b)+\*`,
		`[[:upper:]][[:digit:]]`,
		`x\nb`,
		`Foo12Bar`,
		`Ab\d\dC`,
		`func|Read`,
		`(?U)a+b`,
		// Sets of literals (see litSet).
		`todo|fixme|xxx|é`,
		`(?:todo|fixme)\b`,
		`\b(?:todo|xxx)`,
		`é|日本|ß`,
		`todo|`,
		`kind|sort`,
		`akd|Kxq`,
		`ind|ſ`,
		`σς|ab`,
		`xx\r|fixme\r`,
		`(?:TODO|FixMe)+`,
		`[kK]`,
		`[é\x{212a}]`,
		`x\nb|todo`,
		`\x{FFFD}|todo`,
	}
	corpora := [][]byte{nil, []byte("\n"), []byte("\r\n"), []byte("ab"), []byte("\xff")}
	for seed := range uint64(20) {
		corpora = append(corpora, matchCorpus(seed, 300))
	}
	for _, p := range patterns {
		for _, caseSensitive := range []bool{true, false} {
			flags := ""
			if !caseSensitive {
				flags = "(?i)"
			}
			re := regexp.MustCompile(flags + p)
			m, err := newLineMatcher(p, caseSensitive)
			if err != nil {
				t.Fatalf("%s%s: %v", flags, p, err)
			}
			for i, data := range corpora {
				want, got := wantLines(re, data), gotLines(m, data)
				if !slices.Equal(got, want) {
					t.Errorf("%s%s on corpus %d: got %d lines, want %d\n%s", flags, p, i, len(got), len(want), firstDiff(got, want))
				}
			}
		}
	}
}

func firstDiff(got, want []matchedLine) string {
	for i := range max(len(got), len(want)) {
		var g, w matchedLine
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			return fmt.Sprintf("first difference: got %d:%q, want %d:%q", g.n, g.text, w.n, w.text)
		}
	}
	return ""
}

// TestLitSetUsed checks which patterns the set of literals serves, so
// that TestLineMatcherAgreesWithRegexp covers it, and that those have
// matches in its corpus.
func TestLitSetUsed(t *testing.T) {
	tests := []struct {
		pattern       string
		caseSensitive bool
		set           bool
		exact         bool
	}{
		{`todo|fixme|xxx`, false, true, true},
		{`todo|fixme|xxx`, true, true, true},
		{`todo|fixme|xxx|é`, false, true, true},
		{`(?:todo|fixme)\b`, false, true, false},
		{`é|日本|ß`, false, true, true},
		{`kind|sort`, false, true, true},
		{`akd|Kxq`, false, true, true},
		{`ind|ſ`, false, true, true},
		{`σς|ab`, false, true, true},
		{`xx\r|fixme\r`, true, true, true},
		{`x\nb|todo`, true, true, false},
		{`[kK]`, false, true, true},
		// An empty alternative matches everywhere.
		{`todo|`, false, false, false},
		// The regexp reads invalid UTF-8 as U+FFFD.
		{`\x{FFFD}|todo`, false, false, false},
		// Anchors too common to beat the DFA.
		{`e|t| `, true, false, false},
		// A single usable literal is searched with bytes.Index.
		{`todo`, false, false, true},
	}
	var corpus []byte
	for seed := range uint64(20) {
		corpus = append(corpus, matchCorpus(seed, 300)...)
	}
	for _, tc := range tests {
		m, err := newLineMatcher(tc.pattern, tc.caseSensitive)
		if err != nil {
			t.Fatal(err)
		}
		if (m.set != nil) != tc.set || m.exact != tc.exact {
			t.Errorf("%q (case-sensitive %v): set %v exact %v, want %v %v", tc.pattern, tc.caseSensitive, m.set != nil, m.exact, tc.set, tc.exact)
		}
		if !tc.set || strings.Contains(tc.pattern, `\n`) {
			continue
		}
		flags := ""
		if !tc.caseSensitive {
			flags = "(?i)"
		}
		if len(wantLines(regexp.MustCompile(flags+tc.pattern), corpus)) == 0 {
			t.Errorf("%q: no line of the test corpus matches", tc.pattern)
		}
	}
}

// TestLitSetFolding checks the literals' case-folded forms that start
// with another byte or take other widths: the Kelvin sign for k, long s
// for s, final sigma.
func TestLitSetFolding(t *testing.T) {
	for _, tc := range []struct {
		pattern, data string
		want          bool
	}{
		{`kind|sort`, "\u212aIND", true},
		{`kind|sort`, "ſoRT", true},
		{`kind|sort`, "\xe2\x84ind", false},
		{`akd|Kxq`, "A\u212aD", true},
		{`akd|Kxq`, "x\u212aXQ", true},
		{`akd|Kxq`, "a\u212a", false},
		{`σς|ab`, "ΣΣ", true},
		{`σς|ab`, "Σ", false},
		{`日本|ß`, "ẞ", true},
		{`日本|ß`, "\xe6\x97\xa5\xe6\x9c", false},
	} {
		m, err := newLineMatcher(tc.pattern, false)
		if err != nil {
			t.Fatal(err)
		}
		if m.set == nil {
			t.Fatalf("%q: no set of literals", tc.pattern)
		}
		got := len(gotLines(m, []byte(tc.data))) == 1
		if got != tc.want {
			t.Errorf("%q on %q: matched %v, want %v", tc.pattern, tc.data, got, tc.want)
		}
	}
}

// TestLineDFACacheBound drives a pattern that needs thousands of DFA
// states (the character 13 before the end) through a cache that has to
// be dropped, and checks the results stay right. Its classes are too
// large or too common for a set of literals.
func TestLineDFACacheBound(t *testing.T) {
	p := `[a-j]*[a-e][a-j]{12}[0-9_]`
	re := regexp.MustCompile(p)
	m, err := newLineMatcher(p, true)
	if err != nil {
		t.Fatal(err)
	}
	if m.dfas == nil {
		t.Fatal("the pattern should have no literal")
	}
	r := rand.New(rand.NewPCG(7, 7))
	var b bytes.Buffer
	for range 3000 {
		for range 30 + r.IntN(30) {
			b.WriteByte("abcdefghij"[r.IntN(10)])
		}
		if r.IntN(3) == 0 {
			b.WriteByte('7')
		}
		b.WriteByte('\n')
	}
	data := b.Bytes()
	want, got := wantLines(re, data), gotLines(m, data)
	if len(want) == 0 {
		t.Fatal("the corpus has no matches")
	}
	if !slices.Equal(got, want) {
		t.Errorf("got %d lines, want %d\n%s", len(got), len(want), firstDiff(got, want))
	}

	parsed, _ := syntax.Parse(p, syntax.Perl)
	d, err := newLineDFA(parsed.Simplify())
	if err != nil {
		t.Fatal(err)
	}
	for pos := 0; pos < len(data); pos += bytes.IndexByte(data[pos:], '\n') + 1 {
		d.find(data, pos)
		if len(d.states) > maxDFAStates {
			t.Fatalf("%d DFA states cached, want at most %d", len(d.states), maxDFAStates)
		}
	}
	if d.resets == 0 {
		t.Errorf("the cache was never dropped: the test does not exercise it")
	}
}

func TestLineMatcherLiterals(t *testing.T) {
	tests := []struct {
		pattern string
		cs      bool
		lit     string
		exact   bool
	}{
		{"func NewReader", true, "func NewReader", true},
		// The literal whose rarest byte is rarest: R, not the ( of
		// "func (" nor the f of "foo".
		{`func \(\w+\) Read`, true, ") Read", false},
		{`\w+\) ReadAll`, true, ") ReadAll", false},
		{"(?:foo)+bar", true, "bar", false},
		{`static int \w+_probe\(`, true, "_probe(", false},
		{`(?i)mutex_lock`, true, "mutex_lock", true},
		{"content-type", false, "content-type", true},
		// These two are served by a set of literals (see litSet).
		{"a|b", true, "", true},
		{"x*", true, "", false},
		{"ünï", false, "", true},
	}
	for _, tc := range tests {
		m, err := newLineMatcher(tc.pattern, tc.cs)
		if err != nil {
			t.Fatal(err)
		}
		if string(m.lit) != tc.lit || m.exact != tc.exact {
			t.Errorf("%q: lit %q exact %v, want %q %v", tc.pattern, m.lit, m.exact, tc.lit, tc.exact)
		}
	}
}

func TestIndexFoldASCII(t *testing.T) {
	tests := []struct {
		data, lit string
		want      int
	}{
		{"xx Content-Type: a", "content-type", 3},
		{"content_type CONTENT-TYPE", "content-type", 13},
		{"abc", "content-type", -1},
		{"zzHelLo", "hello", 2},
		{"hell", "hello", -1},
		{"a-b A-B", "a-b", 0},
		{"-b A-B", "a-b", 3},
	}
	for _, tc := range tests {
		if got := indexFoldASCII([]byte(tc.data), []byte(tc.lit), rarestFoldByte([]byte(tc.lit))); got != tc.want {
			t.Errorf("indexFoldASCII(%q, %q) = %d, want %d", tc.data, tc.lit, got, tc.want)
		}
	}
}

// indexRare finds what bytes.Index finds, whichever byte it scans for.
func TestIndexRare(t *testing.T) {
	data := []byte("spin_lock(&l); spin_lock_irqsave(&l, f); q spin_lock_irqsave")
	for _, lit := range []string{"spin_lock_irqsave", "spin", "q", "e", "(&l, f)", "irqsave", "nowhere", "savex"} {
		for k := range len(lit) {
			for start := range len(data) {
				want := bytes.Index(data[start:], []byte(lit))
				if got := indexRare(data[start:], []byte(lit), k); got != want {
					t.Fatalf("indexRare(data[%d:], %q, %d) = %d, want %d", start, lit, k, got, want)
				}
			}
		}
	}
	if k := rarestByte([]byte("spin_lock_irqsave")); k != strings.IndexByte("spin_lock_irqsave", 'q') {
		t.Errorf("rarest byte of spin_lock_irqsave at %d, want the q", k)
	}
	// Ignoring case, k and K together are rarer than _ in source code.
	if k := rarestFoldByte([]byte("mutex_lock")); k != strings.IndexByte("mutex_lock", 'k') {
		t.Errorf("byte of mutex_lock scanned for ignoring case at %d, want the k", k)
	}
}

// indexFoldLetter finds what a plain search ignoring case finds,
// wherever the letter's two cases fall around its windows.
func TestIndexFoldLetter(t *testing.T) {
	data := make([]byte, 20000)
	for i := range data {
		data[i] = '.'
	}
	slow := func(d, lit []byte) int { return bytes.Index(bytes.ToLower(d), lit) }
	for _, lit := range []string{"k", "xk", "k.", "a.k.b", "kk"} {
		for _, pos := range [][2]int{{-1, -1}, {5, -1}, {-1, 5}, {5, 9000}, {9000, 5}, {4095, 4096}, {4096, 4095}, {4097, 4096}, {8191, 8192}, {12000, 19999}, {19999, 12000}, {0, 19998}} {
			d := slices.Clone(data)
			for i, p := range pos {
				if p >= 0 {
					d[p] = "kK"[i]
				}
			}
			for _, p := range pos {
				if p > 0 && lit == "xk" {
					d[p-1] = 'X'
				}
			}
			l := []byte(lit)
			k := bytes.IndexByte(l, 'k')
			for _, from := range []int{0, 1, 4094} {
				if got, want := indexFoldASCII(d[from:], l, k), slow(d[from:], l); got != want {
					t.Errorf("%q, k at %d, K at %d, from %d: got %d, want %d", lit, pos[0], pos[1], from, got, want)
				}
			}
		}
	}
}
