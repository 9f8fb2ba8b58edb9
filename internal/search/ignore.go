package search

import (
	"bufio"
	"bytes"
	"path/filepath"
	"regexp"
	"strings"
)

// ignoreRule is one line of a .gitignore or .ignore file.
type ignoreRule struct {
	m       nameMatch
	negate  bool
	dirOnly bool
	// anchored rules (with a slash before their end) match the path
	// relative to the file's directory; others match any base name below
	// it.
	anchored bool
}

// ignoreStack is the chain of ignore files that apply in one directory,
// deepest first. It is immutable, so subdirectories share their parent's
// chain across goroutines.
type ignoreStack struct {
	parent *ignoreStack
	base   string // the directory holding the file
	rules  []ignoreRule
}

// ignoreFileNames are read in each directory, later ones overriding
// earlier ones (as ripgrep ranks .ignore over .gitignore).
var ignoreFileNames = []string{".gitignore", ".ignore"}

// push returns s with the ignore file at path added on top, or s itself
// when the file is missing or has no rules.
func (s *ignoreStack) push(dir, path string) *ignoreStack {
	data, err := readRegular(path)
	if err != nil {
		return s
	}
	rules := parseIgnore(data)
	if len(rules) == 0 {
		return s
	}
	return &ignoreStack{parent: s, base: dir, rules: rules}
}

// ignored reports whether abs (a path below every base in s) is ignored:
// the deepest file's last matching rule decides.
func (s *ignoreStack) ignored(abs string, isDir bool) bool {
	return s.ignoredName(abs, filepath.Base(abs), isDir)
}

// ignoredName is ignored for a path whose last element, name, the caller
// has at hand.
func (s *ignoreStack) ignoredName(abs, name string, isDir bool) bool {
	for n := s; n != nil; n = n.parent {
		var rel string
		for i := len(n.rules) - 1; i >= 0; i-- {
			r := &n.rules[i]
			if r.dirOnly && !isDir {
				continue
			}
			subject := name
			if r.anchored {
				if rel == "" {
					var ok bool
					if rel, ok = relBelow(n.base, abs); !ok {
						break
					}
				}
				subject = rel
			}
			if r.m.match(subject) {
				return !r.negate
			}
		}
	}
	return false
}

// parseIgnore parses gitignore syntax: comments, blank lines, `!`
// negation, trailing `/` for directories only, leading or inner `/`
// anchoring, `*`, `?`, `[...]` and `**`.
func parseIgnore(data []byte) []ignoreRule {
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		// Trailing spaces are dropped unless escaped.
		for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
			line = line[:len(line)-1]
		}
		if line == "" || line[0] == '#' {
			continue
		}
		var r ignoreRule
		if line[0] == '!' {
			r.negate = true
			line = line[1:]
		} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			r.dirOnly = true
			line = strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		if strings.Contains(line, "/") {
			r.anchored = true
			line = strings.TrimPrefix(line, "/")
		}
		start := -1
		if r.anchored {
			start = strings.IndexAny(line, `*?[\`)
		}
		re, err := regexp.Compile("^" + globRegexpFrom(line, false, start, true) + "$")
		if err != nil {
			continue // a malformed line is ignored, as git does
		}
		r.m = newNameMatch(line, r.anchored, re)
		rules = append(rules, r)
	}
	return rules
}

// globRegexp translates a glob into a regular expression (without
// anchors): `*` and `?` stay within one path segment, `**` crosses
// segments, `[...]` is a class (`!` or `^` negates) and, when braces is
// set, `{a,b}` is an alternation.
func globRegexp(glob string, braces bool) string {
	return globRegexpFrom(glob, braces, -1, false)
}

// globRegexpFrom is globRegexp, with git's rules when git is set:
// asterisks not both after a segment start and before a slash or the end
// are one `*`, and a `**` at byte offset start also counts as starting a
// segment (git compares an anchored pattern's
// leading literal (up to its first `*?[\`) apart and matches the rest as
// a pattern of its own, so in `a**/b` the `**/` spans directories).
func globRegexpFrom(glob string, braces bool, start int, git bool) string {
	var b strings.Builder
	depth := 0
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case c == '*' && strings.HasPrefix(glob[i:], "**"):
			j := i + 2
			for j < len(glob) && glob[j] == '*' {
				j++
			}
			atStart := i == 0 || glob[i-1] == '/' || i == start
			switch {
			case atStart && j < len(glob) && glob[j] == '/':
				b.WriteString("(?:.*/)?")
				i = j
			case atStart && j == len(glob):
				b.WriteString(".*")
				i = j - 1
			case git:
				// Elsewhere consecutive asterisks are one `*`.
				b.WriteString("[^/]*")
				i = j - 1
			default:
				b.WriteString(".*")
				i = j - 1
			}
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		case c == '[':
			class, n := globClass(glob[i:])
			if n == 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(class)
			i += n - 1
		case c == '\\' && i+1 < len(glob):
			i++
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		case braces && c == '{':
			depth++
			b.WriteString("(?:")
		case braces && c == '}' && depth > 0:
			depth--
			b.WriteByte(')')
		case braces && c == ',' && depth > 0:
			b.WriteByte('|')
		default:
			b.WriteString(regexp.QuoteMeta(glob[i : i+1]))
		}
	}
	for ; depth > 0; depth-- {
		b.WriteByte(')')
	}
	return b.String()
}

// globClass translates the bracket expression at the start of glob
// ("[...]": `!` or `^` negates, a `]` first is a member, POSIX classes
// such as `[:alpha:]` and backslash escapes inside) into a regexp class,
// and says how many bytes of glob it took; 0 when the bracket is not
// closed (it is then a literal '[').
func globClass(glob string) (string, int) {
	j := 1
	var b strings.Builder
	b.WriteByte('[')
	if j < len(glob) && (glob[j] == '!' || glob[j] == '^') {
		b.WriteByte('^')
		j++
	}
	first := true
	for j < len(glob) {
		c := glob[j]
		switch {
		case c == ']' && !first:
			b.WriteByte(']')
			return b.String(), j + 1
		case c == '[' && strings.HasPrefix(glob[j:], "[:"):
			end := strings.Index(glob[j+2:], ":]")
			if end < 0 {
				b.WriteString(`\[`)
				j++
				break
			}
			b.WriteString(glob[j : j+2+end+2])
			j += 2 + end + 2
		case c == '\\' && j+1 < len(glob):
			b.WriteString(regexp.QuoteMeta(glob[j+1 : j+2]))
			j += 2
		case c == '-' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'):
			b.WriteByte(c)
			j++
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
			j++
		}
		first = false
	}
	return "", 0
}

// compileGlob compiles a glob matched against whole slash-separated
// paths.
func compileGlob(glob string) (*regexp.Regexp, error) {
	return regexp.Compile("^" + globRegexp(glob, true) + "$")
}

// relBelow returns abs relative to base, slash-separated, when abs is
// below base. The walk builds every path by joining names to its root,
// so the prefix is there; filepath.Rel is for the rest.
func relBelow(base, abs string) (string, bool) {
	if len(abs) > len(base) && strings.HasPrefix(abs, base) && (abs[len(base)] == filepath.Separator || strings.HasSuffix(base, string(filepath.Separator))) {
		rel := strings.TrimPrefix(abs[len(base):], string(filepath.Separator))
		return filepath.ToSlash(rel), true
	}
	rp, err := filepath.Rel(base, abs)
	if err != nil || rp == ".." || strings.HasPrefix(rp, ".."+string(filepath.Separator)) {
		return "", false
	}
	return filepath.ToSlash(rp), true
}
