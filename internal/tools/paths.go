package tools

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Sandbox modes, as the session names them.
const (
	sandboxReadOnly         = "read-only"
	sandboxWorkspaceWrite   = "workspace-write"
	sandboxDangerFullAccess = "danger-full-access"
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
// a target and checks that the sandbox lets the model read it.
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
	switch {
	case err == nil:
		t.Real = real
	case errors.Is(err, syscall.ELOOP):
		return t, fmt.Errorf("%s: symlink loop", t.Display)
	case errors.Is(err, os.ErrNotExist):
		// Not on disk; decide on the lexical path (an unsaved editor
		// buffer, or a plain "not found" later).
		real = abs
	default:
		return t, fmt.Errorf("%s: %w", t.Display, err)
	}
	if err := mayRead(env, real); err != nil {
		return t, err
	}
	return t, nil
}

// mayRead is the one place that decides whether the model may read path
// (symlinks already resolved). Inside the workspace it always may; outside
// it, the sandbox mode decides. Like Codex's sandbox, read-only and
// workspace-write allow reading the whole machine; they only restrict
// writes.
func mayRead(env *Env, real string) error {
	if within(realCwd(env), real) {
		return nil
	}
	switch env.SandboxMode {
	case "", sandboxReadOnly, sandboxWorkspaceWrite, sandboxDangerFullAccess:
		return nil
	}
	return fmt.Errorf("%s is outside the workspace %s, and sandbox mode %q does not allow reading there", real, env.Cwd, env.SandboxMode)
}

func realCwd(env *Env) string {
	if r, err := filepath.EvalSymlinks(env.Cwd); err == nil {
		return r
	}
	return filepath.Clean(env.Cwd)
}

// within reports whether p is dir or below it.
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// displayPath names abs relative to Cwd when it is inside, else absolute.
func displayPath(env *Env, abs string) string {
	if env.Cwd != "" && within(env.Cwd, abs) {
		if rel, err := filepath.Rel(env.Cwd, abs); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return abs
}
