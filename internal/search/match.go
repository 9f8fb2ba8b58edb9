package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// lineMatcher finds the lines of a text that match a pattern, without
// running the regular expression line by line: a literal every match must
// contain (found with bytes.Index, which is vectorised), or else a set of
// literals one of which every match contains (litSet), picks candidate
// lines, and only those are checked with the regexp. Patterns with
// neither go through a lazy DFA (lineDFA).
type lineMatcher struct {
	line *regexp.Regexp // the pattern, matched against one line
	lit  []byte         // a literal every match contains, or nil
	fold bool           // lit is compared ignoring ASCII case
	rare int            // the offset in lit of the byte to scan for (-1: a letter's two cases)
	// exact: a line matches exactly when it contains lit (or a literal
	// of set).
	exact bool
	// set, when there is no usable literal, is a set of literals one of
	// which every match contains.
	set *litSet
	// dfas hold *lineDFA, which find the candidate lines when there is
	// neither.
	dfas *sync.Pool
	// also are the other literals, matched exactly, that a match holds
	// besides lit: a candidate line without one of them is passed over
	// without the regexp.
	also [][]byte
	// unicode, when set, searches the texts that hold a Kelvin sign or
	// a long s, which fold to k and s: lit is an ASCII literal with one
	// of those, ignoring case.
	unicode *lineMatcher
	signs   [][]byte // with unicode: the signs that send a text to it
}

// Folding k and s beyond ASCII (see lineMatcher.unicode).
var kelvinSign, longS = []byte("\u212a"), []byte("\u017f")

func newLineMatcher(pattern string, caseSensitive bool) (*lineMatcher, error) {
	flags := ""
	if !caseSensitive {
		flags = "(?i)"
	}
	line, err := regexp.Compile(flags + pattern)
	if err != nil {
		return nil, err
	}
	m := &lineMatcher{line: line}
	re, err := syntax.Parse(flags+pattern, syntax.Perl)
	if err != nil {
		return nil, err
	}
	re = re.Simplify()
	lit, fold := requiredLiteral(re)
	s := string(lit)
	// Without a literal, or with one bytes.Index cannot look for (case
	// folding beyond ASCII; U+FFFD, which the regexp also reads for
	// invalid UTF-8), a set of literals or else a DFA finds the
	// candidate lines. An ASCII literal with a k or an s, ignoring case,
	// also matches the Kelvin sign and the long s: the ASCII scan serves
	// the texts without either, the slow way the others.
	kelvin := fold && isASCII(s) && strings.ContainsAny(s, "ksKS")
	if len(lit) == 0 || (fold && !isASCII(s)) || strings.ContainsRune(s, utf8.RuneError) || kelvin {
		if err := m.setOrDFA(re); err != nil || !kelvin {
			return m, err
		}
		m = &lineMatcher{line: line, unicode: m}
		// Only the literal's own k and s can be written otherwise:
		// look for the signs they fold to.
		if strings.ContainsAny(s, "kK") {
			m.signs = append(m.signs, kelvinSign)
		}
		if strings.ContainsAny(s, "sS") {
			m.signs = append(m.signs, longS)
		}
	}
	m.lit, m.fold = []byte(s), fold
	m.exact = re.Op == syntax.OpLiteral && !bytes.ContainsRune(m.lit, '\n')
	if !m.exact {
		m.also = alsoRequired(re, m.lit)
	}
	m.rare = rarestByte(m.lit)
	if fold {
		m.lit = bytes.ToLower(m.lit)
		m.rare = rarestFoldByte(m.lit)
	}
	return m, nil
}

// setOrDFA makes m find candidate lines with a set of literals, or else
// with a lazy DFA.
func (m *lineMatcher) setOrDFA(re *syntax.Regexp) error {
	if set := newLitSet(re); set != nil {
		m.set, m.exact = set, set.exact
		return nil
	}
	if _, err := newLineDFA(re); err != nil {
		return err
	}
	m.dfas = &sync.Pool{New: func() any {
		d, _ := newLineDFA(re)
		return d
	}}
	return nil
}

// requiredLiteral returns the longest literal that every match of re
// contains, and whether it is matched ignoring case.
func requiredLiteral(re *syntax.Regexp) ([]rune, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		return re.Rune, re.Flags&syntax.FoldCase != 0
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best []rune
		bestFold, bestCost := false, 0
		for _, sub := range re.Sub {
			lit, fold := requiredLiteral(sub)
			if len(lit) == 0 {
				continue
			}
			// Prefer the literal whose prefilter stops at the fewest
			// candidates, then longer ones.
			cost := literalCost(lit, fold)
			if best == nil || cost < bestCost || (cost == bestCost && len(lit) > len(best)) {
				best, bestFold, bestCost = lit, fold, cost
			}
		}
		return best, bestFold
	}
	return nil, false
}

// alsoRequired returns the literals, matched exactly, of the parts of
// re's top-level concatenation, but for lit (the one scanned for).
func alsoRequired(re *syntax.Regexp, lit []byte) [][]byte {
	for re.Op == syntax.OpCapture {
		re = re.Sub[0]
	}
	if re.Op != syntax.OpConcat {
		return nil
	}
	var out [][]byte
	for _, sub := range re.Sub {
		if sub.Op != syntax.OpLiteral || sub.Flags&syntax.FoldCase != 0 || slices.Contains(sub.Rune, utf8.RuneError) {
			continue
		}
		if b := []byte(string(sub.Rune)); !bytes.Equal(b, lit) && !bytes.ContainsRune(b, '\n') {
			out = append(out, b)
		}
	}
	return out
}

// hasAlso reports whether line holds every literal of m.also.
func (m *lineMatcher) hasAlso(line []byte) bool {
	for _, b := range m.also {
		if !bytes.Contains(line, b) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// index finds the next occurrence of the literal in data.
func (m *lineMatcher) index(data []byte) int {
	if !m.fold {
		return indexRare(data, m.lit, m.rare)
	}
	return indexFoldASCII(data, m.lit, m.rare)
}

// indexFoldASCII is bytes.Index ignoring ASCII case; lit is lower case.
// It scans for lit's byte at offset k (rarestFoldByte), either case of
// it when it is a letter (indexFoldLetter), so that vectorised scans find
// the candidates.
func indexFoldASCII(data, lit []byte, k int) int {
	c := lit[k]
	if 'a' <= c && c <= 'z' {
		return indexFoldLetter(data, lit, k)
	}
	for off := 0; off+len(lit) <= len(data); {
		i := bytes.IndexByte(data[off+k:], c)
		if i < 0 {
			return -1
		}
		at := off + i
		if at+len(lit) > len(data) {
			return -1
		}
		if bytes.EqualFold(data[at:at+len(lit)], lit) {
			return at
		}
		off = at + 1
	}
	return -1
}

// indexFoldLetter is indexFoldASCII for a letter at offset k: the text
// is read in windows; in each, the commoner case of the letter is
// scanned for from candidate to candidate, and the next of the rarer
// case is kept, found once per occurrence, so that each candidate costs
// one vectorised scan and a text dense in the commoner case is not
// scanned window after window for a rare one. Another byte of lit is
// compared before the whole.
func indexFoldLetter(data, lit []byte, k int) int {
	n := len(lit)
	c := lit[k]
	common, rare := c, c-'a'+'A'
	if byteFreq[rare] > byteFreq[common] {
		common, rare = rare, common
	}
	// The check byte: lit's rarest other byte, if it has one.
	ck := k
	for i := range lit {
		if i != k && (ck == k || foldCost(lit[i]) < foldCost(lit[ck])) {
			ck = i
		}
	}
	cb := lit[ck]
	mask := byte(0)
	if 'a' <= cb && cb <= 'z' {
		mask = 0x20 // either case of a letter
	}
	const window = 4 << 10
	end := len(data) - n + k + 1 // the letter of a match lies in data[k:end]
	for start := k; start < end; start += window {
		w := data[start:min(start+window, end)]
		r := bytes.IndexByte(w, rare)
		for from := 0; from < len(w); {
			i := bytes.IndexByte(w[from:], common)
			if i >= 0 {
				i += from
			}
			if r >= 0 && (i < 0 || r < i) {
				i, r = r, -1
				if j := bytes.IndexByte(w[i+1:], rare); j >= 0 {
					r = i + 1 + j
				}
			}
			if i < 0 {
				break
			}
			at := start + i - k
			if data[at+ck]|mask == cb && bytes.EqualFold(data[at:at+n], lit) {
				return at
			}
			from = i + 1
		}
	}
	return -1
}

// eachLine calls fn with the 1-based number and the text (without its
// newline) of every line of data that matches, in order, until fn returns
// false.
func (m *lineMatcher) eachLine(data []byte, fn func(n int, line []byte) bool) {
	if m.unicode != nil && slices.ContainsFunc(m.signs, func(sign []byte) bool { return bytes.Contains(data, sign) }) {
		m.unicode.eachLine(data, fn)
		return
	}
	var dfa *lineDFA
	exact := m.exact
	streams := newSetStreams()
	if m.dfas != nil {
		dfa = m.dfas.Get().(*lineDFA)
		defer m.dfas.Put(dfa)
		exact = dfa.exact
	}
	pos, lineNo := 0, 1 // pos is the start of line lineNo
	for pos < len(data) {
		var at int
		if m.set != nil {
			if at = m.set.find(&streams, data, pos); at < 0 {
				return
			}
		} else if dfa == nil {
			i := m.index(data[pos:])
			if i < 0 {
				return
			}
			at = pos + i
		} else if at = dfa.find(data, pos); at < 0 {
			return
		}
		start := bytes.LastIndexByte(data[pos:at], '\n') + 1 + pos
		lineNo += bytes.Count(data[pos:start], []byte{'\n'})
		end := bytes.IndexByte(data[at:], '\n')
		next := 0
		if end < 0 {
			end = len(data)
			next = len(data) + 1
		} else {
			end += at
			next = end + 1
		}
		line := data[start:end]
		cr := len(line) > 0 && line[len(line)-1] == '\r'
		if cr {
			line = line[:len(line)-1]
		}
		// The prefilter saw the '\r' the regexp does not: check those
		// lines.
		if ((exact && !cr) || (m.hasAlso(line) && m.line.Match(line))) && !fn(lineNo, line) {
			return
		}
		if next > len(data) || (next == len(data) && end == len(data)) {
			return
		}
		pos, lineNo = next, lineNo+1
		if pos == len(data) {
			return
		}
	}
}
