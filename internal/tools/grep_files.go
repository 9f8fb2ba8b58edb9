package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/search"
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

func (GrepFiles) Kind() event.ToolKind { return event.KindSearch }
func (GrepFiles) Mutating(*Call) bool  { return false }

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

// grepResult is what a search found, and where, as the tool shows it.
type grepResult struct {
	*search.Result
	q    grepQuery
	root string // as shown
}

// grep runs q: the query is compiled and its path resolved, then the
// file it names or the tree below it is searched (internal/search);
// render presents the result.
func grep(ctx context.Context, env *Env, q grepQuery) (*grepResult, error) {
	if q.Limit <= 0 {
		q.Limit = defaultGrepLimit
	}
	q.Limit = min(q.Limit, maxGrepLimit)
	view := env.files()
	g, err := search.NewGrep(search.Query{
		Pattern: q.Pattern, CaseSensitive: q.CaseSensitive, Include: q.Include, Limit: q.Limit, FilesOnly: q.FilesOnly,
		MaxLineBytes: env.limits().MaxLineBytes, MaxFileSize: MaxGrepFileSize,
		StopAtLimit: true,
	}, searchDocs{view})
	if err != nil {
		return nil, err
	}
	if q.Path == "" {
		q.Path = "."
	}
	t, err := resolvePath(env, q.Path)
	if err != nil {
		return nil, err
	}
	r := &grepResult{q: q, root: t.Display}
	var note *search.Note
	if t.Real == "" {
		// Not on disk: a document open in the editor and not saved yet.
		doc, ok := view.Document(t.Abs)
		if !ok {
			return nil, fmt.Errorf("%s: no such file or directory", t.Display)
		}
		r.root = filepath.ToSlash(filepath.Dir(t.Display))
		if !isBinary([]byte(doc.Text)) {
			g.Text(filepath.Base(t.Abs), []byte(doc.Text))
		}
	} else if fi, err := os.Stat(t.Abs); err != nil {
		return nil, fmt.Errorf("%s: %w", t.Display, plainErr(err))
	} else if fi.IsDir() {
		g.SetSkip(skipHidden(env, t))
		if err := g.Tree(ctx, t.Abs, env.Cwd); err != nil {
			return nil, err
		}
	} else {
		r.root = filepath.ToSlash(filepath.Dir(t.Display))
		note = grepFile(g, view, t, fi)
	}
	r.Result = g.Result()
	if note != nil {
		r.Skipped = append(r.Skipped, *note)
	}
	return r, nil
}

// grepFile searches the one file t names. A special file (a named pipe,
// a device) that is not open in the editor is not read: the note says
// what it is.
func grepFile(g *search.Grep, view FileView, t target, fi fs.FileInfo) *search.Note {
	rel := filepath.Base(t.Abs)
	if !fi.Mode().IsRegular() && !slices.Contains(view.OpenPaths(), t.Abs) {
		return &search.Note{Rel: rel, Err: &workspace.NotRegularError{Path: t.Abs, Mode: fi.Mode()}}
	}
	g.File(rel, t.Abs)
	return nil
}

// render formats the result within lim.
func (r *grepResult) render(lim OutputLimits) string {
	if r.MatchFiles == 0 {
		out := "No matches found."
		if len(r.Skipped) > 0 {
			out += "\n" + skippedNote(r.Skipped, "Not searched")
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
	for _, f := range r.Files {
		if r.q.FilesOnly {
			if shown >= r.q.Limit || !b.Add(prefix+f.Rel) {
				break
			}
			shown++
			continue
		}
		for _, l := range f.Lines {
			text := l.Text
			if l.Cut > 0 {
				text += cutMarker(l.Cut)
			}
			if shown >= r.q.Limit || !b.Add(fmt.Sprintf("%s%s:%d: %s", prefix, f.Rel, l.N, text)) {
				break outer
			}
			shown++
		}
		shownFiles++
	}
	var trailer []string
	total, unit := r.Matches, "matching lines"
	if r.q.FilesOnly {
		total, unit = r.MatchFiles, "matching files"
	}
	switch {
	case r.Stopped:
		// The counts are of the files searched before the limit filled.
		why := fmt.Sprintf("limit=%d", r.q.Limit)
		if b.Full() {
			why = b.capReason()
		}
		trailer = append(trailer, fmt.Sprintf("[Showed %d of at least %d %s in at least %d files (stopped at %s; the search stopped there, in path order, and did not count the rest). Narrow `path` or `include`, make the pattern more specific, or raise `limit` (at most %d).]",
			shown, total, unit, r.MatchFiles, why, maxGrepLimit))
	case shown < total:
		why := fmt.Sprintf("limit=%d", r.q.Limit)
		if b.Full() {
			why = b.capReason()
		}
		trailer = append(trailer, fmt.Sprintf("[Showed %d of %d %s in %d files (stopped at %s); %d left out. Narrow `path` or `include`, make the pattern more specific, or raise `limit` (at most %d).]",
			shown, total, unit, r.MatchFiles, why, total-shown, maxGrepLimit))
	}
	if len(r.Skipped) > 0 {
		trailer = append(trailer, skippedNote(r.Skipped, "Not searched"))
	}
	return b.String(strings.Join(trailer, "\n"))
}

// skippedNote names the paths not searched (or listed: what says) and
// why, the first five of them.
func skippedNote(notes []search.Note, what string) string {
	const show = 5
	var parts []string
	for i, s := range notes {
		if i == show {
			parts = append(parts, fmt.Sprintf("and %d more", len(notes)-show))
			break
		}
		parts = append(parts, fmt.Sprintf("%s (%v)", s.Rel, s.Err))
	}
	return fmt.Sprintf("[%s: %s.]", what, strings.Join(parts, ", "))
}
