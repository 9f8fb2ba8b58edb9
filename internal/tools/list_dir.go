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
)

//go:embed list_dir.md
var listDirDescription string

// ListDir shows a directory tree to a bounded depth.
type ListDir struct{}

const (
	defaultListLimit = 100
	defaultListDepth = 2
	// maxListEntries bounds the entries counted (not shown) in one call.
	maxListEntries = 50000
)

var listDirSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "dir_path": {"type": "string", "description": "The directory, relative to the working directory or absolute. Default: the working directory."},
    "offset": {"type": "integer", "minimum": 1, "description": "First entry to show, 1-based. Default 1."},
    "limit": {"type": "integer", "minimum": 1, "description": "Most entries to show. Default 100."},
    "depth": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Levels to show. Default 2."}
  },
  "additionalProperties": false
}`)

func (ListDir) Spec() Spec {
	return Spec{Type: Function, Name: "list_dir", Description: listDirDescription, Parameters: listDirSchema}
}

func (ListDir) Kind() event.ToolKind { return event.KindRead }
func (ListDir) Mutating(*Call) bool  { return false }

type listDirArgs struct {
	DirPath string `json:"dir_path"`
	Offset  int    `json:"offset"`
	Limit   int    `json:"limit"`
	Depth   int    `json:"depth"`
}

func (ListDir) Title(call *Call) string {
	var a listDirArgs
	_ = json.Unmarshal(call.Arguments, &a)
	if a.DirPath == "" {
		a.DirPath = "."
	}
	return "List " + a.DirPath
}

type listEntry struct {
	name   string
	suffix string
	depth  int
	dir    bool
}

func (ListDir) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a listDirArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("list_dir: invalid arguments: %w", err)
	}
	a.defaults()
	t, err := resolvePath(env, a.DirPath)
	if err != nil {
		return Output{}, fmt.Errorf("list_dir: %w", err)
	}
	fi, err := os.Stat(t.Abs)
	if err != nil {
		return Output{}, fmt.Errorf("list_dir: %s: %w", t.Display, plainErr(err))
	}
	if !fi.IsDir() {
		return Output{}, fmt.Errorf("list_dir: %s is not a directory; use read_file to read it", t.Display)
	}
	l := listing{env: env, depth: a.Depth, unsaved: unsavedByDir(env, t.Abs), skip: skipHidden(env, t)}
	l.visit(ctx, t.Abs, 0)
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	return l.render(env.limits(), a, t)
}

func (a *listDirArgs) defaults() {
	if a.DirPath == "" {
		a.DirPath = "."
	}
	a.Offset = max(a.Offset, 1)
	if a.Limit <= 0 {
		a.Limit = defaultListLimit
	}
	if a.Depth <= 0 {
		a.Depth = defaultListDepth
	}
}

// unsavedByDir returns the editor's unsaved files below dir (open, not on
// disk), by the directory that holds them.
func unsavedByDir(env *Env, dir string) map[string][]string {
	unsaved := map[string][]string{}
	for _, abs := range env.files().OpenPaths() {
		if !filepath.IsAbs(abs) || !lexicallyWithin(dir, abs) {
			continue
		}
		if _, err := os.Lstat(abs); err != nil {
			unsaved[filepath.Dir(abs)] = append(unsaved[filepath.Dir(abs)], filepath.Base(abs))
		}
	}
	return unsaved
}

// listing collects a directory tree's entries, depth first, each
// directory's sorted by name.
type listing struct {
	env     *Env
	depth   int                 // levels to list
	unsaved map[string][]string // unsaved editor files by directory
	entries []listEntry
	notes   []string // directories that could not be read
	// truncated: maxListEntries were collected and the walk stopped.
	truncated bool
	// skip: the folders not to list into (skipHidden), or nil.
	skip func(abs string, link bool) bool
}

// visit adds the entries of dir, at depth, and of its subdirectories
// down to the listing's depth.
func (l *listing) visit(ctx context.Context, dir string, depth int) {
	if l.truncated || ctx.Err() != nil {
		return
	}
	des, err := os.ReadDir(dir)
	if err != nil && len(des) == 0 {
		l.notes = append(l.notes, fmt.Sprintf("%s (%v)", displayPath(l.env, dir), plainErr(err)))
	}
	level := make([]listEntry, 0, len(des))
	for _, de := range des {
		e := listEntry{name: de.Name(), depth: depth}
		switch typ := de.Type(); {
		case typ.IsDir():
			e.suffix, e.dir = "/", true
		case typ&fs.ModeSymlink != 0:
			e.suffix = "@"
		case !typ.IsRegular():
			e.suffix = "?"
		}
		level = append(level, e)
	}
	if unsaved := l.unsaved[dir]; len(unsaved) > 0 {
		for _, name := range unsaved {
			level = append(level, listEntry{name: name, suffix: " (unsaved)", depth: depth})
		}
		// os.ReadDir sorted the rest
		slices.SortFunc(level, func(x, y listEntry) int { return strings.Compare(x.name, y.name) })
	}
	for _, e := range level {
		if len(l.entries) == maxListEntries {
			l.truncated = true
			return
		}
		l.entries = append(l.entries, e)
		if e.dir && depth+1 < l.depth && e.name != ".git" {
			if abs := filepath.Join(dir, e.name); l.skip == nil || !l.skip(abs, false) {
				l.visit(ctx, abs, depth+1)
			}
		}
	}
}

// render shows the entries from the offset on, within the limit and lim.
func (l *listing) render(lim OutputLimits, a listDirArgs, t target) (Output, error) {
	b := newBudget(lim)
	b.Add("Absolute path: " + t.Abs)
	if len(l.entries) == 0 {
		return Output{Text: b.String("(empty directory)")}, nil
	}
	if a.Offset > len(l.entries) {
		return Output{}, fmt.Errorf("list_dir: offset %d is past the last entry (%s has %d entries at depth %d)", a.Offset, t.Display, len(l.entries), a.Depth)
	}
	shown := 0
	for _, e := range l.entries[a.Offset-1:] {
		if shown >= a.Limit {
			break
		}
		line := strings.Repeat("  ", e.depth) + cutLine(e.name, lim.MaxLineBytes) + e.suffix
		if !b.Add(line) {
			break
		}
		shown++
	}
	var trailer []string
	last := a.Offset - 1 + shown
	total := fmt.Sprintf("%d", len(l.entries))
	if l.truncated {
		total = fmt.Sprintf("more than %d", maxListEntries)
	}
	if last < len(l.entries) || l.truncated {
		why := fmt.Sprintf("limit=%d", a.Limit)
		if b.Full() {
			why = b.capReason()
		}
		trailer = append(trailer, fmt.Sprintf("[Showed entries %d-%d of %s (stopped at %s). Call list_dir with offset=%d for more, or list a subdirectory.]", a.Offset, last, total, why, last+1))
	}
	if len(l.notes) > 0 {
		trailer = append(trailer, "[Could not read: "+strings.Join(l.notes, ", ")+".]")
	}
	return Output{Text: b.String(strings.Join(trailer, "\n"))}, nil
}
