package search

import (
	"bytes"
	"regexp/syntax"
	"slices"
	"unicode"
	"unicode/utf8"
)

// litSet is the prefilter for patterns with no single required literal
// but a set of literals one of which every match contains, such as
// `(?i)todo|fixme|xxx`: the lazy DFA reads every byte (about 2.6 ns a
// byte), where this looks for one rare byte of each literal with
// bytes.IndexByte (vectorised) and checks the literal around each one.
//
// Each literal has an anchor: one of its runes, at a fixed byte offset
// from the literal's start, whose every case-folded form begins with a
// byte of a small set (k: k, K and 0xE2 for the Kelvin sign). Every
// occurrence of the literal thus holds one of those bytes at that
// offset. The bytes of all anchors are searched in parallel streams, each
// keeping its next position, so the text is scanned once per byte.
type litSet struct {
	needles []setNeedle
	bytes   []byte     // the anchor bytes searched for
	anchors [][]setRef // anchors[i]: the literals anchored on bytes[i]
	exact   bool       // a line matches exactly when it holds a literal
	cost    int        // estimated hits per 1000 bytes of text
}

type setRef struct {
	needle int
	off    int // byte offset of the anchor in the literal
}

// setNeedle is one literal of the set.
type setNeedle struct {
	runes []rune
	fold  bool
	// lit, when not nil, is the literal as bytes, compared exactly or,
	// with fold, ignoring ASCII case (lower case here): no rune of it
	// has a case variant outside ASCII.
	lit []byte
	// orbits[i]: the runes runes[i] matches (its simple case folding
	// orbit with fold).
	orbits [][]rune
}

// maxSetBytes bounds the anchor bytes, and so the streams searched.
const maxSetBytes = 8

// maxSetCost is the most hits per 1000 bytes the anchors are expected
// to have for the set to be used: each hit costs a call to
// bytes.IndexByte and a comparison, some 10 ns, against the DFA's
// 2.6 ns a byte.
const maxSetCost = 60

// maxClassRunes is the largest character class taken as a set of
// one-rune literals.
const maxClassRunes = 8

// newLitSet returns the prefilter for re, or nil when re has no usable
// set of literals.
func newLitSet(re *syntax.Regexp) *litSet {
	lits := requiredSet(re)
	if lits == nil {
		return nil
	}
	s := planSet(lits)
	if s == nil || s.cost > maxSetCost {
		return nil
	}
	s.exact = setIsExact(re)
	for _, n := range s.needles {
		if slices.Contains(n.runes, '\n') {
			s.exact = false
		}
	}
	return s
}

// setIsExact reports whether a line matches re exactly when it contains
// one of the literals requiredSet returns for re.
func setIsExact(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral, syntax.OpCharClass:
		return true
	case syntax.OpCapture:
		return setIsExact(re.Sub[0])
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			if !setIsExact(sub) {
				return false
			}
		}
		return true
	}
	return false
}

// requiredSet returns literals one of which every match of re contains,
// or nil when it finds none.
func requiredSet(re *syntax.Regexp) []setNeedle {
	switch re.Op {
	case syntax.OpLiteral:
		if len(re.Rune) == 0 {
			return nil
		}
		return []setNeedle{{runes: re.Rune, fold: re.Flags&syntax.FoldCase != 0}}
	case syntax.OpCharClass:
		var out []setNeedle
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			if int(hi-lo)+1+len(out) > maxClassRunes {
				return nil
			}
			for r := lo; r <= hi; r++ {
				out = append(out, setNeedle{runes: []rune{r}})
			}
		}
		return out
	case syntax.OpCapture, syntax.OpPlus:
		return requiredSet(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredSet(re.Sub[0])
		}
	case syntax.OpAlternate:
		var out []setNeedle
		for _, sub := range re.Sub {
			lits := requiredSet(sub)
			if lits == nil {
				return nil // this alternative needs no literal
			}
			out = append(out, lits...)
		}
		return out
	case syntax.OpConcat:
		var best []setNeedle
		bestCost := 0
		for _, sub := range re.Sub {
			lits := requiredSet(sub)
			if lits == nil {
				continue
			}
			if s := planSet(lits); s != nil && (best == nil || s.cost < bestCost) {
				best, bestCost = lits, s.cost
			}
		}
		return best
	}
	return nil
}

// planSet picks an anchor for every literal, the bytes to search for
// and their estimated cost; nil when a literal has no anchor or there
// are too many bytes.
func planSet(lits []setNeedle) *litSet {
	// Each literal's anchor candidates: the runes with a fixed offset
	// from its start (the runes before them have forms of one width).
	cands := make([][]anchorChoice, len(lits))
	for i := range lits {
		var ok bool
		if cands[i], ok = lits[i].prepare(); !ok {
			return nil
		}
	}
	pick := pickAnchors(cands)
	s := &litSet{}
	for i := range lits {
		c := cands[i][pick[i]]
		for _, b := range c.bytes {
			k := bytes.IndexByte(s.bytes, b)
			if k < 0 {
				if len(s.bytes) == maxSetBytes {
					return nil
				}
				k = len(s.bytes)
				s.bytes = append(s.bytes, b)
				s.anchors = append(s.anchors, nil)
				s.cost += byteCost(b)
			}
			s.anchors[k] = append(s.anchors[k], setRef{needle: i, off: c.off})
		}
	}
	s.needles = lits
	return s
}

// anchorChoice is a rune of a literal that can anchor it: its byte
// offset in the literal and the first bytes of its case-folded forms.
type anchorChoice struct {
	off   int
	bytes []byte
}

// prepare fills n's orbits and lit and returns its anchor candidates:
// the runes at a fixed offset from its start (the runes before them have
// forms of one width). ok is false for a literal holding an invalid
// byte.
func (n *setNeedle) prepare() (cands []anchorChoice, ok bool) {
	n.orbits = make([][]rune, len(n.runes))
	ascii := true
	off := 0
	fixed := true
	for j, r := range n.runes {
		if r == utf8.RuneError {
			// The regexp also reads each invalid byte as U+FFFD.
			return nil, false
		}
		orbit := []rune{r}
		if n.fold {
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				orbit = append(orbit, f)
			}
		}
		n.orbits[j] = orbit
		var first []byte
		width := utf8.RuneLen(r)
		for _, f := range orbit {
			if f >= utf8.RuneSelf {
				ascii = false
			}
			if utf8.RuneLen(f) != width {
				width = -1
			}
			first = appendUnique(first, utf8.AppendRune(nil, f)[0])
		}
		if fixed {
			cands = append(cands, anchorChoice{off, first})
		}
		if width < 0 {
			fixed = false
		}
		off += width
	}
	switch {
	case !n.fold:
		n.lit = []byte(string(n.runes))
	case ascii:
		n.lit = bytes.ToLower([]byte(string(n.runes)))
	}
	return cands, true
}

// pickAnchors chooses a candidate per literal: greedy, then once more
// with what the other literals search for already counted as free, so
// literals share bytes.
func pickAnchors(cands [][]anchorChoice) []int {
	pick := make([]int, len(cands))
	for pass := range 2 {
		for i := range cands {
			used := map[byte]bool{}
			for k := range cands {
				if k < i || (pass == 1 && k != i) {
					for _, b := range cands[k][pick[k]].bytes {
						used[b] = true
					}
				}
			}
			best, bestCost := 0, -1
			for j, c := range cands[i] {
				cost := 0
				for _, b := range c.bytes {
					if !used[b] {
						cost += byteCost(b)
					}
				}
				if bestCost < 0 || cost < bestCost {
					best, bestCost = j, cost
				}
			}
			pick[i] = best
		}
	}
	return pick
}

func appendUnique(s []byte, b byte) []byte {
	if bytes.IndexByte(s, b) >= 0 {
		return s
	}
	return append(s, b)
}

// byteCost estimates how many of 1000 bytes of source code or prose are
// b, roughly: a rarer byte makes a better anchor.
func byteCost(b byte) int {
	switch {
	case b == ' ':
		return 120
	case bytes.IndexByte([]byte("etaoinrs0\t\n"), b) >= 0:
		return 30
	case bytes.IndexByte([]byte("lcdufxhp1.,()/"), b) >= 0:
		return 13
	case 'a' <= b && b <= 'z', '0' <= b && b <= '9', bytes.IndexByte([]byte("\"=:_{}*"), b) >= 0:
		return 7
	case b < ' ' && b != '\r':
		return 1
	case b >= utf8.RuneSelf:
		return 2
	}
	return 4 // upper case, other punctuation, '\r'
}

// setStreams holds, for each anchor byte, the start of the next literal
// found through it: stale when before the search position, len(data)
// when there is none left. Each stream runs through its byte's
// occurrences on its own, so the text is scanned once per byte and the
// streams are only compared when one finds a literal.
type setStreams [maxSetBytes]int

func newSetStreams() setStreams {
	var st setStreams
	for i := range st {
		st[i] = -1
	}
	return st
}

// find returns the start of a literal of the set in data at or after pos
// (a line start), or -1. No line between pos and the one it is in holds
// a literal of the set (one with a newline may start on an earlier line
// than the match through which it was found; the lines are checked).
func (s *litSet) find(st *setStreams, data []byte, pos int) int {
	best := len(data)
	for i := range s.bytes {
		if st[i] < pos {
			st[i] = s.stream(i, data, pos)
		}
		best = min(best, st[i])
	}
	if best == len(data) {
		return -1
	}
	return best
}

// stream returns the start of the first literal found through an
// occurrence of s.bytes[i] at or after pos, or len(data).
func (s *litSet) stream(i int, data []byte, pos int) int {
	b, refs := s.bytes[i], s.anchors[i]
	for from := pos; from < len(data); {
		j := bytes.IndexByte(data[from:], b)
		if j < 0 {
			break
		}
		p := from + j
		// A literal starting before pos would hold the newline before
		// it: no line matches through it.
		for _, a := range refs {
			if start := p - a.off; start >= pos && s.needles[a.needle].at(data, start) {
				return start
			}
		}
		from = p + 1
	}
	return len(data)
}

// at reports whether the literal occurs in data at i. i is an ASCII or
// UTF-8 leading byte (the anchor is one, or a rune before it is), so it
// starts a rune where the regexp decodes one too.
func (n *setNeedle) at(data []byte, i int) bool {
	if n.lit != nil {
		if i+len(n.lit) > len(data) {
			return false
		}
		w := data[i : i+len(n.lit)]
		if !n.fold {
			return string(w) == string(n.lit)
		}
		for j, c := range w {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != n.lit[j] {
				return false
			}
		}
		return true
	}
	for _, orbit := range n.orbits {
		if i >= len(data) {
			return false
		}
		r, w := utf8.DecodeRune(data[i:])
		if w == 1 && r == utf8.RuneError {
			return false // no literal rune is U+FFFD
		}
		if !slices.Contains(orbit, r) {
			return false
		}
		i += w
	}
	return true
}
