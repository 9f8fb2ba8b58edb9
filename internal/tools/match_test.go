package tools

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

// TestLineDFACacheBound drives a pattern that needs thousands of DFA
// states (the character 13 before the end) through a cache that has to
// be dropped, and checks the results stay right.
func TestLineDFACacheBound(t *testing.T) {
	p := `[ab]*[ax][ab]{12}[cd]`
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
			b.WriteByte("ab"[r.IntN(2)])
		}
		if r.IntN(3) == 0 {
			b.WriteByte('c')
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
