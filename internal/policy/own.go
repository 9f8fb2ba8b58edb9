package policy

import (
	"fmt"
	"path/filepath"
	"slices"
)

// OwnPath is a file or folder of agent-ls's own that it later reads, runs
// or trusts outside the sandbox: its user config folder (a [[hooks]] entry
// added there runs unsandboxed at the next start), its state folder
// (sessions, transcripts, change-set journals, all read back as the
// agent's own record), its binaries and the programs the user's config
// names (hooks, MCP servers). Wherever the workspace is, a sandboxed
// command may not write them and a file change that would asks first,
// like a change to .git.
type OwnPath struct {
	// Path is absolute; Real the same with its symlinks resolved.
	Path, Real string
	// What names it for the user: "agent-ls's config folder".
	What string
	// Hidden: sandboxed commands may not read it either (the OAuth
	// tokens of MCP servers): the sandbox covers it with an empty,
	// read-only folder.
	Hidden bool
}

// WithOwn returns a copy of b that also keeps own read-only: Target asks
// for a change at or below any of them, and the sandbox pins them. Paths
// that are not absolute are left out.
func (b *Boundary) WithOwn(own []OwnPath) *Boundary {
	c := *b
	c.own = nil
	seen := map[string]bool{}
	for _, o := range own {
		if !filepath.IsAbs(o.Path) {
			continue
		}
		o.Path = filepath.Clean(o.Path)
		o.Real = o.Path
		if real, err := Resolve(o.Path); err == nil {
			o.Real = real
		}
		if !seen[o.Real] {
			seen[o.Real] = true
			c.own = append(c.own, o)
		}
	}
	return &c
}

// Own lists the paths of agent-ls's own that the boundary keeps
// read-only (see [OwnPath]), resolved when it was built.
func (b *Boundary) Own() []OwnPath { return slices.Clone(b.own) }

// ownAt returns the own path that real (resolved) lies at or below.
func (b *Boundary) ownAt(real string) (OwnPath, bool) {
	for _, o := range b.own {
		if within(o.Real, real) {
			return o, true
		}
	}
	return OwnPath{}, false
}

// ownWhy is Target's reason for a path of agent-ls's own.
func ownWhy(where string, o OwnPath) string {
	at := o.Real
	if o.What != "" {
		at = fmt.Sprintf("%s, %s", o.Real, o.What)
	}
	return fmt.Sprintf("%s is inside %s: agent-ls reads, runs or trusts it outside the sandbox, so writing it needs the user's approval whatever the workspace", where, at)
}

// HomeWorkspace reports whether a workspace rooted at root is the home
// folder home or one of its ancestors, symlinks resolved: such a
// workspace holds the user's whole configuration (shell start-up files,
// ~/.ssh, agent-ls's own config), so its sessions' sandbox is read-only
// unless the user's config sets allow_home_workspace.
func HomeWorkspace(root, home string) bool {
	if !filepath.IsAbs(root) || !filepath.IsAbs(home) {
		return false
	}
	r, err := Resolve(filepath.Clean(root))
	if err != nil {
		return false
	}
	h, err := Resolve(filepath.Clean(home))
	if err != nil {
		return false
	}
	return within(r, h)
}
