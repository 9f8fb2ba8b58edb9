package tools

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// grepSearch is one running search: the compiled query and the result
// the workers add to.
type grepSearch struct {
	q             grepQuery
	m             *lineMatcher
	include       *regexp.Regexp // nil: every file
	includeByName bool           // include matches the base name only
	maxLineBytes  int
	view          FileView
	res           *grepResult

	mu   sync.Mutex // guards res and kept while workers search
	kept int        // lines (or files) held in res.files
}

// newGrepSearch compiles q (its pattern and include glob, its defaults
// applied) and resolves its path.
func newGrepSearch(env *Env, q grepQuery) (*grepSearch, target, error) {
	if q.Limit <= 0 {
		q.Limit = defaultGrepLimit
	}
	q.Limit = min(q.Limit, maxGrepLimit)
	m, err := newLineMatcher(q.Pattern, q.CaseSensitive)
	if err != nil {
		return nil, target{}, fmt.Errorf("invalid pattern: %w", err)
	}
	s := &grepSearch{q: q, m: m, maxLineBytes: env.limits().MaxLineBytes, view: env.files()}
	if q.Include != "" {
		if s.include, err = compileGlob(q.Include); err != nil {
			return nil, target{}, fmt.Errorf("invalid include glob %q: %w", q.Include, err)
		}
		s.includeByName = !strings.Contains(q.Include, "/")
	}
	if q.Path == "" {
		s.q.Path = "."
	}
	t, err := resolvePath(env, s.q.Path)
	if err != nil {
		return nil, target{}, err
	}
	s.res = &grepResult{q: s.q, root: t.Display}
	return s, t, nil
}

// searchNamed searches t when it is one file (on disk, or a document
// open in the editor and not saved yet). It reports whether t is a
// directory, to search as a tree.
func (s *grepSearch) searchNamed(t target) (dir bool, err error) {
	if t.Real == "" {
		doc, ok := s.view.Document(t.Abs)
		if !ok {
			return false, fmt.Errorf("%s: no such file or directory", t.Display)
		}
		s.res.root = filepath.ToSlash(filepath.Dir(t.Display))
		if !isBinary([]byte(doc.Text)) {
			s.search(filepath.Base(t.Abs), []byte(doc.Text))
		}
		return false, nil
	}
	fi, err := os.Stat(t.Abs)
	if err != nil {
		return false, fmt.Errorf("%s: %w", t.Display, plainErr(err))
	}
	if fi.IsDir() {
		return true, nil
	}
	rel := filepath.Base(t.Abs)
	s.res.root = filepath.ToSlash(filepath.Dir(t.Display))
	data, err := readForGrep(s.view, t.Abs, slices.Contains(s.view.OpenPaths(), t.Abs), make([]byte, 0, 64<<10))
	if err != nil {
		s.skip(rel, err)
	} else {
		s.search(rel, data)
	}
	return false, nil
}

// searchTree searches every file below the directory t that the ignore
// rules let through, in parallel, then the editor's unsaved documents
// there.
func (s *grepSearch) searchTree(ctx context.Context, cwd string, t target) error {
	opts := walkOptions{Root: t.Abs, Base: ignoreBase(cwd, t.Abs)}
	open := openUnder(s.view, t.Abs)
	var seen sync.Map // open documents the walk reached
	bufs := sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	notes := walk(ctx, opts, func(f walkFile) {
		if !s.wanted(f.Rel) {
			return
		}
		if open[f.Abs] {
			seen.Store(f.Abs, true)
		}
		bp := bufs.Get().(*[]byte)
		defer bufs.Put(bp)
		s.searchFile(f, open[f.Abs], bp)
	})
	s.res.skipped = append(s.res.skipped, notes...)
	if err := ctx.Err(); err != nil {
		return err
	}
	// Files open in the editor but not on disk (new, unsaved buffers).
	for abs := range open {
		if _, ok := seen.Load(abs); ok {
			continue
		}
		if _, err := os.Lstat(abs); err == nil || pathIgnored(opts, abs, false) {
			continue
		}
		rel, _ := filepath.Rel(t.Abs, abs)
		rel = filepath.ToSlash(rel)
		if !s.wanted(rel) {
			continue
		}
		if doc, ok := s.view.Document(abs); ok && !isBinary([]byte(doc.Text)) {
			s.search(rel, []byte(doc.Text))
		}
	}
	return nil
}

// searchFile reads and searches one file the walk found, into the
// worker's buffer *bp unless the file is open in the editor.
func (s *grepSearch) searchFile(f walkFile, open bool, bp *[]byte) {
	var data []byte
	var err error
	if open {
		data, err = readForGrep(s.view, f.Abs, true, nil)
	} else {
		data, err = readForGrep(s.view, f.Abs, false, *bp)
		if cap(data) > cap(*bp) && cap(data) <= 1<<20 {
			*bp = data[:0]
		}
	}
	switch {
	case errors.Is(err, errTooLarge):
		s.skip(f.Rel, err)
	case errors.Is(err, errBinary):
	case err != nil:
		s.skip(f.Rel, plainErr(err))
	default:
		s.search(f.Rel, data)
	}
}

// wanted reports whether the include glob lets rel through.
func (s *grepSearch) wanted(rel string) bool {
	if s.include == nil {
		return true
	}
	if s.includeByName {
		return s.include.MatchString(filepath.Base(rel))
	}
	return s.include.MatchString(rel)
}

// search matches the lines of one file's data and keeps its hits.
func (s *grepSearch) search(rel string, data []byte) {
	fh := fileHits{rel: rel}
	s.m.eachLine(data, func(n int, line []byte) bool {
		fh.count++
		if s.q.FilesOnly {
			return false
		}
		if len(fh.lines) < s.q.Limit {
			fh.lines = append(fh.lines, lineHit{n: n, text: cutLine(string(line), s.maxLineBytes)})
		}
		return true
	})
	if fh.count > 0 {
		s.add(fh)
	}
}

// add keeps one file's hits, trimming what is kept to the limit once it
// holds four times as much.
func (s *grepSearch) add(fh fileHits) {
	s.mu.Lock()
	defer s.mu.Unlock()
	res := s.res
	res.matches += fh.count
	res.matchFiles++
	res.files = append(res.files, fh)
	res.peakFiles = max(res.peakFiles, len(res.files))
	if s.q.FilesOnly {
		s.kept++
	} else {
		s.kept += len(fh.lines)
	}
	if s.kept > 4*s.q.Limit {
		s.kept = res.trim()
	}
}

// skip notes a file that could not be searched.
func (s *grepSearch) skip(rel string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.res.skipped = append(s.res.skipped, walkNote{Rel: rel, Err: err})
}

// trim sorts the kept files by path and drops those past the limit,
// returning how many lines (or files) are still kept.
func (r *grepResult) trim() int {
	slices.SortFunc(r.files, func(a, b fileHits) int { return cmp.Compare(a.rel, b.rel) })
	kept := 0
	for i := range r.files {
		if kept >= r.q.Limit {
			r.files = r.files[:i]
			break
		}
		if r.q.FilesOnly {
			kept++
		} else {
			kept += len(r.files[i].lines)
		}
	}
	return kept
}

// openUnder returns the open documents at or below dir.
func openUnder(view FileView, dir string) map[string]bool {
	open := map[string]bool{}
	for _, p := range view.OpenPaths() {
		if filepath.IsAbs(p) && lexicallyWithin(dir, p) {
			open[p] = true
		}
	}
	return open
}

// openDocument is the view's document at path when the path is open.
func openDocument(view FileView, path string, open bool) (workspace.Doc, bool) {
	if !open {
		return workspace.Doc{}, false
	}
	return view.Document(path)
}

var (
	errTooLarge = errors.New("file too large")
	errBinary   = errors.New("binary file")
)

// readForGrep returns the text of path: the editor's text when the file
// is open there (open), else the disk's, read into buf. Files that are
// not open are never read through the view: a view may reach an editor
// over the wire (ACP's fs/read_text_file), too slow for every file of a
// walk. It refuses files over MaxGrepFileSize and binary files.
func readForGrep(view FileView, path string, open bool, buf []byte) ([]byte, error) {
	var data []byte
	if doc, ok := openDocument(view, path, open); ok {
		data = []byte(doc.Text)
	} else {
		var err error
		if data, err = readDisk(path, buf); err != nil {
			return nil, err
		}
	}
	if isBinary(data[:min(len(data), sniffLen)]) {
		return nil, errBinary
	}
	return data, nil
}
