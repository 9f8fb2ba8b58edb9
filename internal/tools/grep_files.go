package tools

import (
	"cmp"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
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

// grep runs q: the query is compiled and its path resolved (the query
// step), then the file it names or the tree below it is searched (the
// engine, grep_search.go); render presents the result. Memory stays
// bounded whatever the tree's size: each worker reuses one read buffer,
// and kept hits are trimmed to the limit as they come in.
func grep(ctx context.Context, env *Env, q grepQuery) (*grepResult, error) {
	s, t, err := newGrepSearch(env, q)
	if err != nil {
		return nil, err
	}
	dir, err := s.searchNamed(t)
	if err != nil {
		return nil, err
	}
	if dir {
		if err := s.searchTree(ctx, env.Cwd, t); err != nil {
			return nil, err
		}
		slices.SortFunc(s.res.skipped, func(a, b walkNote) int { return cmp.Compare(a.Rel, b.Rel) })
	}
	s.res.trim()
	return s.res, nil
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
