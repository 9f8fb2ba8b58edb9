package tools

import (
	"fmt"
	"path/filepath"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// hiddenAt returns the folder of agent-ls's own that the model may not
// read (policy.OwnPath.Hidden: the MCP servers' OAuth tokens) at or
// above path, which is absolute; path is checked as given and with its
// symbolic links resolved, so a link elsewhere leads no further.
func hiddenAt(env *Env, path string) (policy.OwnPath, bool) {
	if len(hiddenOwn(env)) == 0 {
		return policy.OwnPath{}, false
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		real = ""
	}
	return hiddenIn(env, path, real)
}

// hiddenIn is hiddenAt of path whose links resolve to real ("" when it
// does not resolve: then path alone is checked).
func hiddenIn(env *Env, path, real string) (policy.OwnPath, bool) {
	for _, o := range hiddenOwn(env) {
		if lexicallyWithin(o.Path, path) || lexicallyWithin(o.Real, path) || (real != "" && lexicallyWithin(o.Real, real)) {
			return o, true
		}
	}
	return policy.OwnPath{}, false
}

// hiddenOwn are the session's hidden folders.
func hiddenOwn(env *Env) []policy.OwnPath {
	if env == nil || env.Boundary == nil {
		return nil
	}
	var out []policy.OwnPath
	for _, o := range env.Boundary.Own() {
		if o.Hidden {
			out = append(out, o)
		}
	}
	return out
}

// hiddenError is the error for a path in a hidden folder.
func hiddenError(display string, o policy.OwnPath) error {
	return fmt.Errorf("%s: agent-ls keeps %s from the model and from sandboxed commands", display, o.What)
}

// skipHidden is the Skip of a walk of t (a directory resolvePath let
// through): the hidden folders below it and the links to files in them
// are left out. A directory is placed by its path below t's resolved
// one, with no system call (the walks follow no link to a directory);
// a link is resolved. nil when no folder is hidden.
func skipHidden(env *Env, t target) func(abs string, link bool) bool {
	hidden := hiddenOwn(env)
	if len(hidden) == 0 {
		return nil
	}
	root, rootReal := t.Abs, t.Real
	if rootReal == "" {
		rootReal = root
	}
	return func(abs string, link bool) bool {
		if link {
			_, in := hiddenAt(env, abs)
			return in
		}
		real := abs
		if rel, err := filepath.Rel(root, abs); err == nil && filepath.IsLocal(rel) {
			real = filepath.Join(rootReal, rel)
		} else if rel == "." {
			real = rootReal
		}
		for _, o := range hidden {
			if lexicallyWithin(o.Path, abs) || lexicallyWithin(o.Real, real) {
				return true
			}
		}
		return false
	}
}
