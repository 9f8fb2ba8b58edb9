package search

import (
	"regexp"
	"strings"
)

// nameMatch matches a glob against one subject (a base name, or a path
// relative to a directory) with a string comparison when the glob is a
// literal, `*lit`, `lit*` or `*lit*`, and with its regexp otherwise. A
// walk asks every file against every ignore rule in scope: the regexp
// engine's cost per call, even for `*.o`, dominated the walk of a large
// tree.
type nameMatch struct {
	kind matchKind
	lit  string
	re   *regexp.Regexp // kind matchRegexp
	// need, with kind matchRegexp, is a literal every match holds (the
	// longest run of plain bytes before the first class, escape or
	// brace, split at slashes, which `**/` may match as nothing):
	// subjects without it are passed over without the regexp.
	need string
	// prefix, with kind matchRegexp, is the glob's literal start, which
	// every match starts with.
	prefix string
}

type matchKind uint8

const (
	matchRegexp matchKind = iota
	matchExact
	matchSuffix
	matchPrefix
	matchContains
)

// globMeta are the bytes that make a glob more than a literal.
const globMeta = `*?[\{`

// newNameMatch returns the matcher of glob against subjects that hold no
// slash (names: any run of `*` is then one `[^/]*`), or, when paths is
// set, the literal case alone; re is the glob's compiled regexp, used
// for everything else.
func newNameMatch(glob string, paths bool, re *regexp.Regexp) nameMatch {
	if !strings.ContainsAny(glob, globMeta) {
		return nameMatch{kind: matchExact, lit: glob}
	}
	if paths || strings.Contains(glob, "/") {
		return regexpMatch(glob, re)
	}
	lead := len(glob) - len(strings.TrimLeft(glob, "*"))
	trail := len(glob) - len(strings.TrimRight(glob, "*"))
	if lead == len(glob) {
		return nameMatch{kind: matchSuffix} // only stars: any name
	}
	lit := glob[lead : len(glob)-trail]
	if strings.ContainsAny(lit, globMeta) {
		return regexpMatch(glob, re)
	}
	switch {
	case lead > 0 && trail > 0:
		return nameMatch{kind: matchContains, lit: lit}
	case lead > 0:
		return nameMatch{kind: matchSuffix, lit: lit}
	default:
		return nameMatch{kind: matchPrefix, lit: lit}
	}
}

// regexpMatch is the matcher of glob through re, with the literals that
// let most subjects be refused without it.
func regexpMatch(glob string, re *regexp.Regexp) nameMatch {
	m := nameMatch{re: re}
	plain := glob
	if i := strings.IndexAny(glob, `[\{`); i >= 0 {
		plain = glob[:i]
	}
	if i := strings.IndexAny(plain, "*?"); i >= 0 {
		m.prefix = plain[:i]
	}
	for seg := range strings.FieldsFuncSeq(plain, func(r rune) bool { return r == '*' || r == '?' || r == '/' }) {
		if len(seg) > len(m.need) {
			m.need = seg
		}
	}
	return m
}

func (m *nameMatch) match(s string) bool {
	switch m.kind {
	case matchExact:
		return s == m.lit
	case matchSuffix:
		return strings.HasSuffix(s, m.lit)
	case matchPrefix:
		return strings.HasPrefix(s, m.lit)
	case matchContains:
		return strings.Contains(s, m.lit)
	}
	if !strings.HasPrefix(s, m.prefix) || !strings.Contains(s, m.need) {
		return false
	}
	return m.re.MatchString(s)
}
