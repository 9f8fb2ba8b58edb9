package search

import (
	"cmp"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Query is one search of file contents.
type Query struct {
	// Pattern is an RE2 regular expression, matched against each line.
	Pattern       string
	CaseSensitive bool
	// Include is a glob the paths must match ("": every file). Without a
	// slash it is matched against base names.
	Include string
	// Limit is how many lines (files, with FilesOnly) the result holds;
	// at least 1.
	Limit     int
	FilesOnly bool
	// MaxLineBytes is how much of a long line the result keeps.
	MaxLineBytes int
	// MaxFileSize is the size above which a file is skipped, and noted.
	MaxFileSize int64
	// StopAtLimit makes a Tree search its files in path order and stop
	// once those searched hold Limit lines (files, with FilesOnly): the
	// hits are then the same, the counts only a lower bound (see
	// Result.Stopped). Without it, every file is searched and counted.
	StopAtLimit bool
}

// Docs are the documents open in the editor. A search reads an open
// document's text (with its unsaved edits) instead of the disk's, and
// searches the ones not on disk yet too.
type Docs interface {
	// OpenPaths returns the absolute paths of the open documents.
	OpenPaths() []string
	// Document returns the text of the open document at path.
	Document(path string) (text string, ok bool)
}

// Result is what a search found: the hits of the files first in path
// order (enough to fill the query's limit), and counts of everything.
type Result struct {
	Files      []FileHits // sorted by path
	Matches    int        // matching lines in all files
	MatchFiles int        // files with a match
	Skipped    []Note     // files and directories not searched, sorted by path
	// Stopped: the search stopped at the limit (Query.StopAtLimit)
	// before the end of the tree. Matches and MatchFiles count the files
	// before that point: there may be more.
	Stopped   bool
	peakFiles int // most files held at once while searching
}

// FileHits are the matching lines of one file.
type FileHits struct {
	Rel   string // slash-separated, relative to what was searched
	Lines []Line // the first ones, at most the limit; none with FilesOnly
	count int    // all matching lines
}

// Line is one matching line.
type Line struct {
	N    int    // 1-based
	Text string // without its newline, cut to MaxLineBytes
	Cut  int    // bytes cut off the end of Text
}

// Note is a path that could not be searched, and why.
type Note struct {
	Rel string
	Err error
}

// Grep is one running search: the compiled query and the result its
// workers add to. Memory stays bounded whatever the tree's size: each
// worker reuses one read buffer, and kept hits are trimmed to the limit
// as they come in.
type Grep struct {
	q             Query
	m             *lineMatcher
	include       *regexp.Regexp // nil: every file
	includeByName bool           // include matches the base name only
	docs          Docs

	mu   sync.Mutex // guards res and kept while workers search
	res  Result
	kept int // lines (or files) held in res.Files
	// stopRel is the last file searched when the search stopped at the
	// limit (res.Stopped).
	stopRel string
	// skipDir: see SetSkip.
	skipDir func(abs string, link bool) bool
}

// SetSkip sets what a Tree leaves out: the directories (link false) and
// the files reached through symbolic links (link true) for which skip
// reports true, given the path as walked. nil leaves out nothing more.
func (g *Grep) SetSkip(skip func(abs string, link bool) bool) { g.skipDir = skip }

// NewGrep compiles q's pattern and include glob.
func NewGrep(q Query, docs Docs) (*Grep, error) {
	m, err := newLineMatcher(q.Pattern, q.CaseSensitive)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern: %w", err)
	}
	g := &Grep{q: q, m: m, docs: docs}
	g.q.Limit = max(g.q.Limit, 1)
	if q.Include != "" {
		if g.include, err = compileGlob(q.Include); err != nil {
			return nil, fmt.Errorf("invalid include glob %q: %w", q.Include, err)
		}
		g.includeByName = !strings.Contains(q.Include, "/")
	}
	return g, nil
}

// Text searches text, the whole of one file, named rel.
func (g *Grep) Text(rel string, text []byte) {
	g.search(rel, text)
}

// File searches the one file at abs, named rel: the open document's text
// when it is open, else the disk's. A file it cannot read (too large,
// binary, unreadable) is noted.
func (g *Grep) File(rel, abs string) {
	data, err := g.read(abs, slices.Contains(g.docs.OpenPaths(), abs), make([]byte, 0, 64<<10))
	if err != nil {
		g.skip(rel, err)
		return
	}
	g.search(rel, data)
}

// Result returns what the search found, trimmed to the limit. Call it
// once the search is done.
func (g *Grep) Result() *Result {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.trim()
	slices.SortFunc(g.res.Skipped, func(a, b Note) int { return cmp.Compare(a.Rel, b.Rel) })
	return &g.res
}

// wanted reports whether the include glob lets rel through.
func (g *Grep) wanted(rel string) bool {
	if g.include == nil {
		return true
	}
	if g.includeByName {
		return g.include.MatchString(filepath.Base(rel))
	}
	return g.include.MatchString(rel)
}

// search matches the lines of one file's data and keeps its hits.
func (g *Grep) search(rel string, data []byte) {
	if fh := g.hits(rel, data); fh.count > 0 {
		g.add(fh)
	}
}

// hits matches the lines of one file's data.
func (g *Grep) hits(rel string, data []byte) FileHits {
	fh := FileHits{Rel: rel}
	g.hitsAt(&fh, data, 0)
	return fh
}

// hitsAt adds to fh the matching lines of data, a part of a file made of
// whole lines that starts after line base, and reports whether the rest
// of the file is still wanted (with FilesOnly, one line is enough).
func (g *Grep) hitsAt(fh *FileHits, data []byte, base int) bool {
	more := true
	g.m.eachLine(data, func(n int, line []byte) bool {
		fh.count++
		if g.q.FilesOnly {
			more = false
			return false
		}
		if len(fh.Lines) < g.q.Limit {
			text := textcut.Prefix(string(line), g.q.MaxLineBytes)
			fh.Lines = append(fh.Lines, Line{N: base + n, Text: text, Cut: len(line) - len(text)})
		}
		return true
	})
	return more
}

// add keeps one file's hits, trimming what is kept to the limit once it
// holds four times as much.
func (g *Grep) add(fh FileHits) {
	g.mu.Lock()
	defer g.mu.Unlock()
	res := &g.res
	res.Matches += fh.count
	res.MatchFiles++
	res.Files = append(res.Files, fh)
	res.peakFiles = max(res.peakFiles, len(res.Files))
	if g.q.FilesOnly {
		g.kept++
	} else {
		g.kept += len(fh.Lines)
	}
	if g.kept > 4*g.q.Limit {
		g.trim()
	}
}

// stopAt reports whether the hits found so far, up to and including the
// file rel, fill the limit, and if so marks the search stopped there.
func (g *Grep) stopAt(rel string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	found := g.res.Matches
	if g.q.FilesOnly {
		found = g.res.MatchFiles
	}
	if found < g.q.Limit {
		return false
	}
	g.res.Stopped, g.stopRel = true, rel
	return true
}

// skip notes a file that could not be searched.
func (g *Grep) skip(rel string, err error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.res.Skipped = append(g.res.Skipped, Note{Rel: rel, Err: err})
}

// trim sorts the kept files by path and drops those past the limit,
// counting how many lines (or files) are still kept. g.mu is held.
func (g *Grep) trim() {
	r := &g.res
	slices.SortFunc(r.Files, func(a, b FileHits) int { return cmp.Compare(a.Rel, b.Rel) })
	kept := 0
	for i := range r.Files {
		if kept >= g.q.Limit {
			r.Files = r.Files[:i]
			break
		}
		if g.q.FilesOnly {
			kept++
		} else {
			kept += len(r.Files[i].Lines)
		}
	}
	g.kept = kept
}
