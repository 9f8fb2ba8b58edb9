package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
)

//go:embed glob.md
var globDescription string

// Glob lists the files whose paths match a glob.
type Glob struct{}

const defaultGlobLimit = 500

var globSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "pattern": {"type": "string", "minLength": 1, "description": "Glob matched against paths relative to path, e.g. **/*.go."},
    "path": {"type": "string", "description": "Directory to search in. Default: the working directory."},
    "limit": {"type": "integer", "minimum": 1, "maximum": 5000, "description": "Most paths to return. Default 500."}
  },
  "required": ["pattern"],
  "additionalProperties": false
}`)

func (Glob) Spec() Spec {
	return Spec{Type: Function, Name: "glob", Description: globDescription, Parameters: globSchema}
}

func (Glob) Kind() event.ToolKind { return event.KindSearch }
func (Glob) Mutating(*Call) bool  { return false }

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	Limit   int    `json:"limit"`
}

func (Glob) Title(call *Call) string {
	var a globArgs
	_ = json.Unmarshal(call.Arguments, &a)
	return "Find files " + a.Pattern
}

func (Glob) Handle(ctx context.Context, env *Env, call *Call) (Output, error) {
	var a globArgs
	if err := json.Unmarshal(call.Arguments, &a); err != nil {
		return Output{}, fmt.Errorf("glob: invalid arguments: %w", err)
	}
	q, err := newGlobQuery(env, a)
	if err != nil {
		return Output{}, fmt.Errorf("glob: %w", err)
	}
	found, err := findGlob(ctx, env, q)
	if err != nil {
		return Output{}, err
	}
	return Output{Text: found.render(env.limits(), q)}, nil
}

// globQuery is one glob call, its defaults applied.
type globQuery struct {
	pattern string // relative to t; a bare name is looked for at any depth
	re      *regexp.Regexp
	limit   int
	t       target // the directory searched
}

// newGlobQuery compiles the pattern and resolves the directory of a.
func newGlobQuery(env *Env, a globArgs) (globQuery, error) {
	q := globQuery{limit: a.Limit}
	if q.limit <= 0 {
		q.limit = defaultGlobLimit
	}
	if a.Path == "" {
		a.Path = "."
	}
	q.pattern = strings.TrimPrefix(filepath.ToSlash(a.Pattern), "./")
	if !strings.Contains(q.pattern, "/") {
		q.pattern = "**/" + q.pattern
	}
	var err error
	if q.re, err = compileGlob(q.pattern); err != nil {
		return q, fmt.Errorf("invalid pattern %q: %w", a.Pattern, err)
	}
	if q.t, err = resolvePath(env, a.Path); err != nil {
		return q, err
	}
	if fi, err := os.Stat(q.t.Abs); err != nil {
		return q, fmt.Errorf("%s: %w", q.t.Display, plainErr(err))
	} else if !fi.IsDir() {
		return q, fmt.Errorf("%s is not a directory", q.t.Display)
	}
	return q, nil
}

// globFound is what a glob found: paths relative to the directory
// searched, sorted, and the directories that could not be read.
type globFound struct {
	matches []string
	notes   []walkNote
}

// findGlob walks the files below the pattern's literal leading
// directories that the ignore rules let through, and adds the editor's
// unsaved documents there.
func findGlob(ctx context.Context, env *Env, q globQuery) (globFound, error) {
	root, rest := q.t.Abs, q.pattern
	for {
		i := strings.IndexByte(rest, '/')
		if i < 0 || strings.ContainsAny(rest[:i], `*?[{\`) {
			break
		}
		root, rest = filepath.Join(root, rest[:i]), rest[i+1:]
	}
	opts := walkOptions{Root: root, Base: ignoreBase(env.Cwd, q.t.Abs)}
	if !opts.NoIgnore && lexicallyWithin(q.t.Abs, root) && root != q.t.Abs {
		// Ignore files between t.Abs and root still apply.
		if pathIgnored(walkOptions{Root: q.t.Abs, Base: opts.Base}, root, true) {
			return globFound{}, nil
		}
	}
	var (
		mu    sync.Mutex
		found globFound
		seen  = map[string]bool{}
	)
	relTo := func(abs string) string {
		r, _ := filepath.Rel(q.t.Abs, abs)
		return filepath.ToSlash(r)
	}
	if fi, err := os.Stat(root); err == nil && fi.IsDir() {
		found.notes = walk(ctx, opts, func(f walkFile) {
			rel := relTo(f.Abs)
			if q.re.MatchString(rel) {
				mu.Lock()
				found.matches = append(found.matches, rel)
				seen[f.Abs] = true
				mu.Unlock()
			}
		})
	}
	if err := ctx.Err(); err != nil {
		return globFound{}, err
	}
	for abs := range openUnder(env.files(), q.t.Abs) {
		if seen[abs] {
			continue
		}
		if _, err := os.Lstat(abs); err == nil {
			continue // on disk: the walk decided
		}
		rel := relTo(abs)
		if q.re.MatchString(rel) && !pathIgnored(walkOptions{Root: q.t.Abs, Base: opts.Base}, abs, false) {
			found.matches = append(found.matches, rel)
		}
	}
	slices.Sort(found.matches)
	return found, nil
}

// render lists the paths found, as the user gave the directory, within
// the query's limit and lim.
func (f globFound) render(lim OutputLimits, q globQuery) string {
	if len(f.matches) == 0 {
		return "No files found."
	}
	prefix := ""
	if q.t.Display != "." {
		prefix = strings.TrimSuffix(q.t.Display, "/") + "/"
	}
	b := newBudget(lim)
	shown := 0
	for _, m := range f.matches {
		if shown >= q.limit || !b.Add(prefix+m) {
			break
		}
		shown++
	}
	var trailer []string
	if shown < len(f.matches) {
		why := fmt.Sprintf("limit=%d", q.limit)
		if b.Full() {
			why = b.capReason()
		}
		trailer = append(trailer, fmt.Sprintf("[Showed %d of %d files (stopped at %s); %d left out. Use a narrower pattern or path.]", shown, len(f.matches), why, len(f.matches)-shown))
	}
	if len(f.notes) > 0 {
		r := grepResult{skipped: f.notes}
		trailer = append(trailer, strings.Replace(r.skippedNote(), "Not searched", "Not listed", 1))
	}
	return b.String(strings.Join(trailer, "\n"))
}
