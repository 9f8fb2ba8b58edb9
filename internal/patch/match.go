package patch

import (
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// A pass is one way of comparing a patch line with a file line. Passes are
// tried in order, each over the whole search range, so an exact match
// anywhere beats a looser one nearer by (as in Codex's seek_sequence).
type pass int

const (
	passExact   pass = iota
	passTrimEnd      // ignore trailing whitespace
	passTrim         // ignore leading and trailing whitespace
	passPunct        // also fold typographic punctuation to ASCII
	numPasses
)

// key returns the form of s that pass p compares.
func (p pass) key(s string) string {
	switch p {
	case passExact:
		return s
	case passTrimEnd:
		return strings.TrimRightFunc(s, unicode.IsSpace)
	case passTrim:
		return strings.TrimSpace(s)
	default:
		return foldPunct(strings.TrimSpace(s))
	}
}

// foldPunct maps the Unicode dashes, quotes and spaces Codex folds to their
// ASCII counterparts. It does not allocate for ASCII input.
func foldPunct(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || strings.IndexFunc(s, func(r rune) bool { return foldRune(r) != r }) < 0 {
		return s
	}
	return strings.Map(foldRune, s)
}

func foldRune(r rune) rune {
	switch r {
	case '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212':
		return '-'
	case '\u2018', '\u2019', '\u201A', '\u201B':
		return '\''
	case '\u201C', '\u201D', '\u201E', '\u201F':
		return '"'
	case '\u00A0', '\u2002', '\u2003', '\u2004', '\u2005', '\u2006', '\u2007',
		'\u2008', '\u2009', '\u200A', '\u202F', '\u205F', '\u3000':
		return ' '
	}
	return r
}

// matcher finds sequences of lines in a file. For each pass it builds, on
// first use, an index from a line's key to the sorted positions of the lines
// with that key, so a search costs time in proportion to the occurrences of
// the pattern's rarest line rather than to the length of the file: applying
// many hunks to a long file stays linear.
type matcher struct {
	lines []string
	index [numPasses]*lineIndex
}

// lineIndex is the index of one pass. Keys are numbered; id[i] is the key
// number of line i and pos[start[k]:start[k+1]] the lines with key k.
type lineIndex struct {
	ids   map[string]int32
	id    []int32
	start []int32
	pos   []int32
}

func newMatcher(lines []string) *matcher { return &matcher{lines: lines} }

func (m *matcher) indexFor(p pass) *lineIndex {
	if x := m.index[p]; x != nil {
		return x
	}
	x := &lineIndex{ids: make(map[string]int32), id: make([]int32, len(m.lines))}
	var count []int32
	for i, l := range m.lines {
		k := p.key(l)
		n, ok := x.ids[k]
		if !ok {
			n = int32(len(count))
			x.ids[k] = n
			count = append(count, 0)
		}
		x.id[i] = n
		count[n]++
	}
	x.start = make([]int32, len(count)+1)
	for k, c := range count {
		x.start[k+1] = x.start[k] + c
	}
	x.pos = make([]int32, len(m.lines))
	next := append([]int32(nil), x.start[:len(count)]...)
	for i, k := range x.id {
		x.pos[next[k]] = int32(i)
		next[k]++
	}
	m.index[p] = x
	return x
}

// keyIDs returns the key numbers of pattern under pass p, or false if some
// pattern line occurs nowhere in the file.
func (x *lineIndex) keyIDs(p pass, pattern []string) ([]int32, bool) {
	ids := make([]int32, len(pattern))
	for i, l := range pattern {
		n, ok := x.ids[p.key(l)]
		if !ok {
			return nil, false
		}
		ids[i] = n
	}
	return ids, true
}

// at reports whether the pattern (as key numbers) matches at line s.
func (x *lineIndex) at(ids []int32, s int) bool {
	if s < 0 || s+len(ids) > len(x.id) {
		return false
	}
	for i, n := range ids {
		if x.id[s+i] != n {
			return false
		}
	}
	return true
}

// each calls yield with every line s >= from where the pattern matches,
// in increasing order, until yield returns false.
func (x *lineIndex) each(ids []int32, from int, yield func(s int) bool) {
	// Walk the occurrences of the rarest pattern line.
	anchor := 0
	for i, n := range ids {
		if x.start[n+1]-x.start[n] < x.start[ids[anchor]+1]-x.start[ids[anchor]] {
			anchor = i
		}
	}
	occ := x.pos[x.start[ids[anchor]]:x.start[ids[anchor]+1]]
	first := sort.Search(len(occ), func(i int) bool { return int(occ[i]) >= from+anchor })
	for _, p := range occ[first:] {
		s := int(p) - anchor
		if s+len(ids) > len(x.id) {
			return
		}
		if x.at(ids, s) && !yield(s) {
			return
		}
	}
}

// seek describes the search of one pattern; the zero value asks for the
// first match from line 0.
type seek struct {
	// from is the first line a match may start at.
	from int
	// eof tries the match at the very end of the file first.
	eof bool
	// unique refuses a pattern that matches more than once in the first
	// pass that matches at all, unless one of the matches is at hint.
	unique bool
	hint   int
}

// find returns where pattern starts, or -1. When s.unique and the pattern
// is ambiguous it returns -1 and two of the positions it matched.
func (m *matcher) find(pattern []string, s seek) (int, []int) {
	n, k := len(m.lines), len(pattern)
	if k == 0 {
		return s.from, nil
	}
	if k > n-s.from {
		return -1, nil
	}
	if s.eof && sameKeys(m.lines[n-k:], pattern) {
		return n - k, nil
	}
	for p := range numPasses {
		x := m.indexFor(p)
		ids, ok := x.keyIDs(p, pattern)
		if !ok {
			continue
		}
		if !s.unique {
			found := -1
			x.each(ids, s.from, func(at int) bool { found = at; return false })
			if found >= 0 {
				return found, nil
			}
			continue
		}
		if s.hint >= s.from && x.at(ids, s.hint) {
			return s.hint, nil
		}
		var found []int
		x.each(ids, s.from, func(at int) bool { found = append(found, at); return len(found) < 2 })
		switch len(found) {
		case 1:
			return found[0], nil
		case 2:
			return -1, found
		}
	}
	return -1, nil
}

// sameKeys reports whether lines and pattern (of the same length) are equal
// under some pass.
func sameKeys(lines, pattern []string) bool {
	for p := range numPasses {
		i := 0
		for i < len(pattern) && p.key(lines[i]) == p.key(pattern[i]) {
			i++
		}
		if i == len(pattern) {
			return true
		}
	}
	return false
}
