package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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
	if a.Limit <= 0 {
		a.Limit = defaultGlobLimit
	}
	if a.Path == "" {
		a.Path = "."
	}
	pattern := strings.TrimPrefix(filepath.ToSlash(a.Pattern), "./")
	if !strings.Contains(pattern, "/") {
		pattern = "**/" + pattern
	}
	re, err := compileGlob(pattern)
	if err != nil {
		return Output{}, fmt.Errorf("glob: invalid pattern %q: %w", a.Pattern, err)
	}
	t, err := resolvePath(env, a.Path)
	if err != nil {
		return Output{}, fmt.Errorf("glob: %w", err)
	}
	if fi, err := os.Stat(t.Abs); err != nil {
		return Output{}, fmt.Errorf("glob: %s: %w", t.Display, plainErr(err))
	} else if !fi.IsDir() {
		return Output{}, fmt.Errorf("glob: %s is not a directory", t.Display)
	}

	// Walk only below the pattern's literal leading directories.
	root, rest := t.Abs, pattern
	for {
		i := strings.IndexByte(rest, '/')
		if i < 0 || strings.ContainsAny(rest[:i], `*?[{\`) {
			break
		}
		root, rest = filepath.Join(root, rest[:i]), rest[i+1:]
	}
	opts := walkOptions{Root: root, Base: ignoreBase(env.Cwd, t.Abs)}
	if !opts.NoIgnore && lexicallyWithin(t.Abs, root) && root != t.Abs {
		// Ignore files between t.Abs and root still apply.
		if pathIgnored(walkOptions{Root: t.Abs, Base: opts.Base}, root, true) {
			return Output{Text: "No files found."}, nil
		}
	}
	var (
		mu      sync.Mutex
		matches []string
		seen    = map[string]bool{}
	)
	relTo := func(abs string) string {
		r, _ := filepath.Rel(t.Abs, abs)
		return filepath.ToSlash(r)
	}
	var notes []walkNote
	if fi, err := os.Stat(root); err == nil && fi.IsDir() {
		notes = walk(ctx, opts, func(f walkFile) {
			rel := relTo(f.Abs)
			if re.MatchString(rel) {
				mu.Lock()
				matches = append(matches, rel)
				seen[f.Abs] = true
				mu.Unlock()
			}
		})
	}
	if err := ctx.Err(); err != nil {
		return Output{}, err
	}
	for abs := range openUnder(env.files(), t.Abs) {
		if seen[abs] {
			continue
		}
		if _, err := os.Lstat(abs); err == nil {
			continue // on disk: the walk decided
		}
		rel := relTo(abs)
		if re.MatchString(rel) && !pathIgnored(walkOptions{Root: t.Abs, Base: opts.Base}, abs, false) {
			matches = append(matches, rel)
		}
	}
	slices.Sort(matches)
	if len(matches) == 0 {
		return Output{Text: "No files found."}, nil
	}
	prefix := ""
	if t.Display != "." {
		prefix = strings.TrimSuffix(t.Display, "/") + "/"
	}
	b := newBudget(env.limits())
	shown := 0
	for _, m := range matches {
		if shown >= a.Limit || !b.Add(prefix+m) {
			break
		}
		shown++
	}
	var trailer []string
	if shown < len(matches) {
		why := fmt.Sprintf("limit=%d", a.Limit)
		if b.Full() {
			why = b.capReason()
		}
		trailer = append(trailer, fmt.Sprintf("[Showed %d of %d files (stopped at %s); %d left out. Use a narrower pattern or path.]", shown, len(matches), why, len(matches)-shown))
	}
	if len(notes) > 0 {
		r := grepResult{skipped: notes}
		trailer = append(trailer, strings.Replace(r.skippedNote(), "Not searched", "Not listed", 1))
	}
	return Output{Text: b.String(strings.Join(trailer, "\n"))}, nil
}
