package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

//go:embed grep_files.md
var grepFilesDescription string

// GrepFiles searches file contents in parallel, the way ripgrep does by
// default (ignore files honoured, hidden and binary files skipped).
type GrepFiles struct{}

const (
	defaultGrepLimit = 100
	maxGrepLimit     = 2000
)

// MaxGrepFileSize is the size above which grep_files skips a file.
var MaxGrepFileSize int64 = 8 << 20

var grepFilesSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "description": "RE2 regular expression, matched per line."},
    "path": {"type": "string", "description": "Directory or file to search, relative to the working directory or absolute. Default: the working directory."},
    "include": {"type": "string", "description": "Glob the file paths must match, e.g. *.go or src/**/*.{ts,tsx}."},
    "case_sensitive": {"type": "boolean", "description": "Default true; false ignores case."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 2000, "description": "Most lines (or files) to return. Default 100."},
    "files_only": {"type": "boolean", "description": "Return only the paths of matching files."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

func (GrepFiles) Spec() Spec {
	return Spec{Type: Function, Name: "grep_files", Description: grepFilesDescription, Parameters: grepFilesSchema}
}

func (GrepFiles) Kind() string        { return event.KindSearch }
func (GrepFiles) Mutating(*Call) bool { return false }

type grepArgs struct {
	Pattern       string `json:"pattern"`
	Path          string `json:"path"`
	Include       string `json:"include"`
	CaseSensitive *bool  `json:"case_sensitive"`
	Limit         int    `json:"limit"`
	FilesOnly     bool   `json:"files_only"`
}

func (GrepFiles) Title(call *Call) string {
	var a grepArgs
	_ = json.Unmarshal(call.Arguments, &a)
	if a.Path != "" {
		return fmt.Sprintf("Search %q in %s", a.Pattern, a.Path)
	}
	return fmt.Sprintf("Search %q", a.Pattern)
}

func (GrepFiles) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a grepArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("grep_files: invalid arguments: %w", err)
	}
	q := grepQuery{Pattern: a.Pattern, Path: a.Path, Include: a.Include, CaseSensitive: a.CaseSensitive == nil || *a.CaseSensitive, Limit: a.Limit, FilesOnly: a.FilesOnly}
	res, err := grep(ctx, env, q)
	if err != nil {
		return Output{}, fmt.Errorf("grep_files: %w", err)
	}
	return Output{Text: res.render(env.limits())}, nil
}

// grepQuery is one search.
type grepQuery struct {
	Pattern       string
	Path          string
	Include       string
	CaseSensitive bool
	Limit         int
	FilesOnly     bool
}

type lineHit struct {
	n    int
	text string
}

type fileHits struct {
	rel   string
	lines []lineHit // the first ones, at most the limit
	count int       // all matching lines
}

// grepResult is what a search found: the hits of the files first in path
// order (enough to fill the limit), and counts of everything.
type grepResult struct {
	q          grepQuery
	root       string // as shown
	files      []fileHits
	matches    int // matching lines in all files
	matchFiles int // files with a match
	skipped    []walkNote
	peakFiles  int // most files held at once while searching
}

// grep runs q. Memory stays bounded whatever the tree's size: each worker
// reuses one read buffer, and kept hits are trimmed to the limit as they
// come in.
func grep(ctx context.Context, env *Env, q grepQuery) (*grepResult, error) {
	if q.Limit <= 0 {
		q.Limit = defaultGrepLimit
	}
	q.Limit = min(q.Limit, maxGrepLimit)
	m, err := newLineMatcher(q.Pattern, q.CaseSensitive)
	if err != nil {
		return nil, fmt.Errorf("invalid pattern: %w", err)
	}
	var include *regexp.Regexp
	includeByName := false
	if q.Include != "" {
		if include, err = compileGlob(q.Include); err != nil {
			return nil, fmt.Errorf("invalid include glob %q: %w", q.Include, err)
		}
		includeByName = !strings.Contains(q.Include, "/")
	}
	if q.Path == "" {
		q.Path = "."
	}
	t, err := resolvePath(env, q.Path)
	if err != nil {
		return nil, err
	}
	view := env.files()
	res := &grepResult{q: q, root: t.Display}

	var (
		mu   sync.Mutex
		kept int // lines (or files) held in res.files
	)
	add := func(fh fileHits) {
		mu.Lock()
		defer mu.Unlock()
		res.matches += fh.count
		res.matchFiles++
		res.files = append(res.files, fh)
		res.peakFiles = max(res.peakFiles, len(res.files))
		if q.FilesOnly {
			kept++
		} else {
			kept += len(fh.lines)
		}
		if kept > 4*q.Limit {
			kept = res.trim()
		}
	}
	skip := func(rel string, err error) {
		mu.Lock()
		defer mu.Unlock()
		res.skipped = append(res.skipped, walkNote{Rel: rel, Err: err})
	}
	search := func(rel string, data []byte) {
		fh := fileHits{rel: rel}
		m.eachLine(data, func(n int, line []byte) bool {
			fh.count++
			if q.FilesOnly {
				return false
			}
			if len(fh.lines) < q.Limit {
				fh.lines = append(fh.lines, lineHit{n: n, text: cutLine(string(line), env.limits().MaxLineBytes)})
			}
			return true
		})
		if fh.count > 0 {
			add(fh)
		}
	}
	wanted := func(rel string) bool {
		if include == nil {
			return true
		}
		if includeByName {
			return include.MatchString(filepath.Base(rel))
		}
		return include.MatchString(rel)
	}

	// Searching one file named directly.
	if t.Real != "" {
		if fi, err := os.Stat(t.Abs); err == nil && !fi.IsDir() {
			rel := filepath.Base(t.Abs)
			res.root = filepath.ToSlash(filepath.Dir(t.Display))
			data, err := readForGrep(view, t.Abs, make([]byte, 0, 64<<10))
			if err != nil {
				skip(rel, err)
			} else {
				search(rel, data)
			}
			res.trim()
			return res, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", t.Display, plainErr(err))
		}
	} else if _, ok := view.Document(t.Abs); ok {
		doc, _ := view.Document(t.Abs)
		res.root = filepath.ToSlash(filepath.Dir(t.Display))
		if !isBinary([]byte(doc.Text)) {
			search(filepath.Base(t.Abs), []byte(doc.Text))
		}
		res.trim()
		return res, nil
	} else {
		return nil, fmt.Errorf("%s: no such file or directory", t.Display)
	}

	opts := walkOptions{Root: t.Abs, Base: ignoreBase(env.Cwd, t.Abs)}
	open := openUnder(view, t.Abs)
	var seen sync.Map // open documents the walk reached
	bufs := sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}
	res.skipped = append(res.skipped, walk(ctx, opts, func(f walkFile) {
		if !wanted(f.Rel) {
			return
		}
		if open[f.Abs] {
			seen.Store(f.Abs, true)
		}
		bp := bufs.Get().(*[]byte)
		defer bufs.Put(bp)
		var data []byte
		var err error
		if open[f.Abs] {
			data, err = readForGrep(view, f.Abs, nil)
		} else {
			data, err = readForGrep(view, f.Abs, *bp)
			if cap(data) > cap(*bp) && cap(data) <= 1<<20 {
				*bp = data[:0]
			}
		}
		switch {
		case errors.Is(err, errTooLarge) || errors.Is(err, errBinary):
			if errors.Is(err, errTooLarge) {
				skip(f.Rel, err)
			}
			return
		case err != nil:
			skip(f.Rel, plainErr(err))
			return
		}
		search(f.Rel, data)
	})...)
	if err := ctx.Err(); err != nil {
		return nil, err
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
		if !wanted(rel) {
			continue
		}
		if doc, ok := view.Document(abs); ok && !isBinary([]byte(doc.Text)) {
			search(rel, []byte(doc.Text))
		}
	}
	res.trim()
	slices.SortFunc(res.skipped, func(a, b walkNote) int { return cmp.Compare(a.Rel, b.Rel) })
	return res, nil
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

var (
	errTooLarge = errors.New("file too large")
	errBinary   = errors.New("binary file")
)

// readForGrep returns the text of path as the view has it, reading disk
// files into buf when the view is known to read the disk, refusing files
// over MaxGrepFileSize and binary files.
func readForGrep(view FileView, path string, buf []byte) ([]byte, error) {
	var data []byte
	switch v := view.(type) {
	case DiskView, *workspace.Store:
		if v, ok := v.(*workspace.Store); ok {
			if doc, ok := v.Document(path); ok {
				data = []byte(doc.Text)
				break
			}
		}
		var err error
		if data, err = readDisk(path, buf); err != nil {
			return nil, err
		}

	default:
		var err error
		if data, err = v.ReadFile(path); err != nil {
			return nil, err
		}
		if int64(len(data)) > MaxGrepFileSize {
			return nil, fmt.Errorf("%w (%s, over %s)", errTooLarge, byteSize(int64(len(data))), byteSize(MaxGrepFileSize))
		}
	}
	if isBinary(data[:min(len(data), sniffLen)]) {
		return nil, errBinary
	}
	return data, nil
}

// render formats the result within lim.
func (r *grepResult) render(lim OutputLimits) string {
	if r.matchFiles == 0 {
		out := "No matches found."
		if len(r.skipped) > 0 {
			out += "\n" + r.skippedNote()
		}
		return out
	}
	b := newBudget(lim)
	prefix := ""
	if r.root != "." {
		prefix = strings.TrimSuffix(r.root, "/") + "/"
	}
	shown, shownFiles := 0, 0
outer:
	for _, f := range r.files {
		if r.q.FilesOnly {
			if shown >= r.q.Limit || !b.Add(prefix+f.rel) {
				break
			}
			shown++
			continue
		}
		for _, l := range f.lines {
			if shown >= r.q.Limit || !b.Add(fmt.Sprintf("%s%s:%d: %s", prefix, f.rel, l.n, l.text)) {
				break outer
			}
			shown++
		}
		shownFiles++
	}
	var trailer []string
	total, unit := r.matches, "matching lines"
	if r.q.FilesOnly {
		total, unit = r.matchFiles, "matching files"
	}
	if shown < total {
		why := fmt.Sprintf("limit=%d", r.q.Limit)
		if b.Full() {
			why = b.capReason()
		}
		trailer = append(trailer, fmt.Sprintf("[Showed %d of %d %s in %d files (stopped at %s); %d left out. Narrow `path` or `include`, make the pattern more specific, or raise `limit` (at most %d).]",
			shown, total, unit, r.matchFiles, why, total-shown, maxGrepLimit))
	}
	if len(r.skipped) > 0 {
		trailer = append(trailer, r.skippedNote())
	}
	return b.String(strings.Join(trailer, "\n"))
}

func (r *grepResult) skippedNote() string {
	const show = 5
	var parts []string
	for i, s := range r.skipped {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(r.skipped)-show))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%v)", s.Rel, s.Err))
	}
	return fmt.Sprintf("[Not searched: %s.]", strings.Join(parts, ", "))
}
