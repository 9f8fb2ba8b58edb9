package search

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Glob is a compiled glob over the paths below a directory.
type Glob struct {
	pattern string // relative to the directory; a bare name is looked for at any depth
	re      *regexp.Regexp
	// name, when the pattern is `**/` and a name glob, matches the base
	// name alone (with a string comparison where it can).
	name *nameMatch
	// Skip, when set, leaves out the directories (link false) and the
	// files reached through symbolic links (link true) for which it
	// reports true, given the path as walked.
	Skip func(abs string, link bool) bool
}

// NewGlob compiles pattern: `*` and `?` stay within one path segment,
// `**` crosses segments, `[...]` is a class and `{a,b}` an alternation. A
// pattern without a slash matches a name at any depth.
func NewGlob(pattern string) (*Glob, error) {
	g := &Glob{pattern: strings.TrimPrefix(filepath.ToSlash(pattern), "./")}
	if !strings.Contains(g.pattern, "/") {
		g.pattern = "**/" + g.pattern
	}
	var err error
	if g.re, err = compileGlob(g.pattern); err != nil {
		return nil, fmt.Errorf("invalid pattern %q: %w", pattern, err)
	}
	if rest, ok := strings.CutPrefix(g.pattern, "**/"); ok && !strings.Contains(rest, "/") {
		if m := newNameMatch(rest, false, nil); m.kind != matchRegexp {
			g.name = &m
		}
	}
	return g, nil
}

// Find returns the paths below the directory dir that match, relative to
// it and sorted, and the directories it could not read. It walks only
// below the pattern's literal leading directories, skips what the ignore
// rules leave out (see Grep.Tree, cwd too), and adds the open documents
// that are not on disk.
func (g *Glob) Find(ctx context.Context, dir, cwd string, docs Docs) ([]string, []Note, error) {
	root, rest := dir, g.pattern
	for {
		i := strings.IndexByte(rest, '/')
		if i < 0 || strings.ContainsAny(rest[:i], `*?[{\`) {
			break
		}
		root, rest = filepath.Join(root, rest[:i]), rest[i+1:]
	}
	opts := walkOptions{Root: root, Base: ignoreBase(cwd, dir), Skip: g.Skip}
	if g.name != nil {
		opts.Files = g.name.match
	}
	if lexicallyWithin(dir, root) && root != dir {
		// Ignore files between dir and root still apply.
		if pathIgnored(walkOptions{Root: dir, Base: opts.Base}, root, true) {
			return nil, nil, nil
		}
	}
	var (
		mu      sync.Mutex
		matches []string
		notes   []Note
		seen    = map[string]bool{}
		open    = openUnder(docs, dir)
	)
	relTo := func(abs string) string {
		if rest, ok := strings.CutPrefix(abs, dir); ok && len(rest) > 1 && rest[0] == filepath.Separator && dir != string(filepath.Separator) {
			return filepath.ToSlash(rest[1:]) // the walk's paths: dir, a separator, the rest
		}
		r, _ := filepath.Rel(dir, abs)
		return filepath.ToSlash(r)
	}
	if fi, err := os.Stat(root); err == nil && fi.IsDir() {
		notes = walk(ctx, opts, func(f walkFile) {
			// With g.name, the walk kept only the names it matches.
			rel := relTo(f.Abs)
			if g.name != nil || g.re.MatchString(rel) {
				mu.Lock()
				matches = append(matches, rel)
				if open[f.Abs] {
					seen[f.Abs] = true
				}
				mu.Unlock()
			}
		})
	}
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	for abs := range open {
		if seen[abs] {
			continue
		}
		if _, err := os.Lstat(abs); err == nil {
			continue // on disk: the walk decided
		}
		rel := relTo(abs)
		if g.re.MatchString(rel) && !pathIgnored(walkOptions{Root: dir, Base: opts.Base}, abs, false) {
			matches = append(matches, rel)
		}
	}
	slices.Sort(matches)
	return matches, notes, nil
}
