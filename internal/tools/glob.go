package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/search"
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
	glob  *search.Glob
	limit int
	t     target // the directory searched
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
	var err error
	if q.glob, err = search.NewGlob(a.Pattern); err != nil {
		return q, err
	}
	if q.t, err = resolvePath(env, a.Path); err != nil {
		return q, err
	}
	q.glob.Skip = skipHidden(env, q.t)
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
	notes   []search.Note
}

// findGlob lists the files below the query's directory that match
// (internal/search), with the editor's unsaved documents there.
func findGlob(ctx context.Context, env *Env, q globQuery) (globFound, error) {
	matches, notes, err := q.glob.Find(ctx, q.t.Abs, env.Cwd, searchDocs{env.files()})
	return globFound{matches: matches, notes: notes}, err
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
		trailer = append(trailer, skippedNote(f.notes, "Not listed"))
	}
	return b.String(strings.Join(trailer, "\n"))
}
