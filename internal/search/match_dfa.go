package search

import (
	"encoding/binary"
	"regexp/syntax"
	"slices"
	"unicode/utf8"
)

// lineDFA finds the lines that contain a match of a pattern with no
// literal for the prefilter, in one pass over the text at about a byte a
// nanosecond.
//
// Go's regexp runs an NFA (or a backtracker on small inputs) over whole
// files for such patterns, and was 7× slower than ripgrep on
// `[A-Z][a-z]+[0-9]{2,}[A-Z]\w*` over the Go tree. The other options,
// measured single-threaded on the 104 MB of GOROOT/src:
//
//   - std regexp: 2.4 s for that pattern, 7.9 s for `(?i)todo|fixme|xxx`;
//   - github.com/grafana/regexp: 2.3 s and 6.2 s, no better;
//   - github.com/wasilibs/go-re2 (RE2 compiled to Go): 0.55 s and 0.36 s,
//     still 2× over ripgrep's wall time on two cores once reading is
//     counted, 6 MB more binary, and it stops at invalid UTF-8, so such
//     files need std regexp anyway;
//   - this DFA: about 0.22 s for either on 86 MB of .go files, 1.2× of
//     ripgrep's wall time on the first in bench/grep.sh; 2.5× on the
//     alternation, where ripgrep searches for the literals with SIMD
//     (such patterns now go to litSet instead).
//
// It is a lazily built DFA over the program regexp/syntax compiles, with
// states cached per byte for ASCII and per rune otherwise, and it decodes
// invalid UTF-8 the way regexp does (one utf8.RuneError per bad byte), so
// it needs no fallback. Empty-width assertions (^, $, \b, \A, ...) are
// taken as always true, which makes it find a superset of the matching
// lines; lineMatcher then checks each candidate with the regexp, unless
// the program has no assertions (the DFA is then exact).
//
// A DFA is used by one goroutine at a time; its cache is bounded.
type lineDFA struct {
	prog *syntax.Prog
	// exact: the DFA's answer is the regexp's (no empty-width
	// assertions).
	exact bool

	states []dfaState
	// ascii[s*128+b] is the state after s reads b, plus one, negated
	// when it is a match state; 0 when not computed yet.
	ascii  []int32
	index  map[string]int32
	start  int32
	resets int // times the cache was dropped

	// scratch
	stack []uint32
	seen  []bool
	set   []uint32
	key   []byte
}

type dfaState struct {
	pcs   []uint32
	match bool
	runes map[rune]int32 // transitions on non-ASCII runes
}

// maxDFAStates bounds the cache: past it the cache is dropped and rebuilt
// as the text needs it.
const maxDFAStates = 2048

func newLineDFA(re *syntax.Regexp) (*lineDFA, error) {
	prog, err := syntax.Compile(re)
	if err != nil {
		return nil, err
	}
	d := &lineDFA{prog: prog, exact: true, seen: make([]bool, len(prog.Inst))}
	for _, in := range prog.Inst {
		if in.Op == syntax.InstEmptyWidth {
			d.exact = false
		}
	}
	d.reset()
	return d, nil
}

func (d *lineDFA) reset() {
	d.states = d.states[:0]
	d.ascii = d.ascii[:0]
	d.index = map[string]int32{}
	d.set = d.set[:0]
	d.closure(uint32(d.prog.Start))
	d.start = d.intern()
}

// closure adds pc and what it reaches without consuming input to d.set.
func (d *lineDFA) closure(pc uint32) {
	d.stack = append(d.stack[:0], pc)
	for len(d.stack) > 0 {
		pc := d.stack[len(d.stack)-1]
		d.stack = d.stack[:len(d.stack)-1]
		if d.seen[pc] {
			continue
		}
		d.seen[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			d.stack = append(d.stack, in.Arg, in.Out)
		case syntax.InstCapture, syntax.InstNop, syntax.InstEmptyWidth:
			d.stack = append(d.stack, in.Out)
		case syntax.InstMatch, syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			d.set = append(d.set, pc)
		}
	}
}

// intern returns the state for d.set, adding it when new, and clears the
// scratch.
func (d *lineDFA) intern() int32 {
	clear(d.seen)
	slices.Sort(d.set)
	d.key = d.key[:0]
	for _, pc := range d.set {
		d.key = binary.LittleEndian.AppendUint32(d.key, pc)
	}
	if s, ok := d.index[string(d.key)]; ok {
		d.set = d.set[:0]
		return s
	}
	st := dfaState{pcs: slices.Clone(d.set)}
	for _, pc := range st.pcs {
		if d.prog.Inst[pc].Op == syntax.InstMatch {
			st.match = true
		}
	}
	s := int32(len(d.states))
	d.states = append(d.states, st)
	d.ascii = append(d.ascii, make([]int32, 128)...)
	// A newline ends the line: start again (the start state is the
	// first one).
	d.ascii[int(s)*128+'\n'] = 1
	d.index[string(d.key)] = s
	d.set = d.set[:0]
	return s
}

// step computes the state after s reads r, unanchored: a match may also
// start after r.
func (d *lineDFA) step(s int32, r rune) int32 {
	for _, pc := range d.states[s].pcs {
		in := &d.prog.Inst[pc]
		var ok bool
		switch in.Op {
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		case syntax.InstRune, syntax.InstRune1:
			ok = in.MatchRune(r)
		}
		if ok {
			d.closure(in.Out)
		}
	}
	d.closure(uint32(d.prog.Start))
	return d.intern()
}

// next is the state after s reads r, from the cache when it can.
func (d *lineDFA) next(s int32, r rune) int32 {
	if r < utf8.RuneSelf {
		if t := d.ascii[int(s)*128+int(r)]; t != 0 {
			return max(t, -t) - 1
		}
	} else if t, ok := d.states[s].runes[r]; ok {
		return t
	}
	if len(d.states) >= maxDFAStates {
		// Keep s: rebuild the cache from it.
		pcs := d.states[s].pcs
		d.reset()
		d.resets++
		d.set = append(d.set, pcs...)
		s = d.intern()
	}
	t := d.step(s, r)
	if r < utf8.RuneSelf {
		d.ascii[int(s)*128+int(r)] = t + 1
		if d.states[t].match {
			d.ascii[int(s)*128+int(r)] = -(t + 1)
		}
	} else {
		if d.states[s].runes == nil {
			d.states[s].runes = map[rune]int32{}
		}
		d.states[s].runes[r] = t
	}
	return t
}

// find returns a position in the first line of data at or after pos (a
// line start) that may match, or -1.
func (d *lineDFA) find(data []byte, pos int) int {
	if pos >= len(data) {
		return -1
	}
	if d.states[d.start].match {
		return pos // the empty string matches: every line does
	}
	s, tab := d.start, d.ascii
	for i := pos; i < len(data); i++ {
		c := data[i]
		if c < utf8.RuneSelf {
			t := tab[int(s)<<7|int(c)]
			if t > 0 {
				s = t - 1
				continue
			}
			if t < 0 {
				return i // into a match state
			}
			s = d.next(s, rune(c))
		} else {
			r, w := utf8.DecodeRune(data[i:])
			s = d.next(s, r)
			i += w - 1
		}
		tab = d.ascii
		if d.states[s].match {
			return i
		}
	}
	return -1
}
