package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// target is a path argument resolved for reading.
type target struct {
	// Abs is the cleaned absolute path, symlinks kept: the key the editor
	// knows the file by.
	Abs string
	// Real is Abs with symlinks resolved; empty when the file does not
	// exist on disk (it may still be open in the editor).
	Real string
	// Display is how outputs name the path: relative to Cwd inside it,
	// absolute outside.
	Display string
}

// resolvePath turns a path argument (relative to env.Cwd or absolute) into
// a target. Like commands in every sandbox mode (and like Codex's
// sandbox), tools may read the whole machine but the folders of agent-ls's
// own that it hides (the MCP servers' OAuth tokens, see hiddenAt); the
// boundary otherwise only limits writes.
func resolvePath(env *Env, p string) (target, error) {
	if strings.TrimSpace(p) == "" {
		return target{}, errors.New("the path is empty")
	}
	abs := p
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(env.Cwd, abs)
	}
	abs = filepath.Clean(abs)
	t := target{Abs: abs, Display: displayPath(env, abs)}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		// EvalSymlinks reports loops in its own words; stat names them.
		if _, serr := os.Stat(abs); serr != nil {
			err = serr
		}
	}
	if o, hidden := hiddenIn(env, abs, real); hidden {
		return t, hiddenError(t.Display, o)
	}
	switch {
	case err == nil:
		t.Real = real
	case errors.Is(err, syscall.ELOOP):
		return t, fmt.Errorf("%s: symlink loop", t.Display)
	case errors.Is(err, os.ErrNotExist):
		// Not on disk: an unsaved editor buffer, or a plain "not found"
		// later.
	default:
		return t, fmt.Errorf("%s: %w", t.Display, err)
	}
	return t, nil
}

// within reports whether p is dir or below it.
func lexicallyWithin(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// displayPath names abs relative to Cwd when it is inside, else absolute.
func displayPath(env *Env, abs string) string {
	if env.Cwd != "" && lexicallyWithin(env.Cwd, abs) {
		if rel, err := filepath.Rel(env.Cwd, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}
