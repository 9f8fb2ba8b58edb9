package sandbox

import (
	"path/filepath"
	"slices"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// boundary is the session boundary the policy describes, given the TMPDIR
// of the command's environment.
func (p Policy) boundary(tmpdir string) (*policy.Boundary, error) {
	return policy.NewBoundary(p.mode(), p.root(), p.WritableRoots, p.tempRoots(tmpdir))
}

// tempRoots are the temporary directories the command may write, given
// the TMPDIR of its environment: /tmp and $TMPDIR unless excluded.
func (p Policy) tempRoots(tmpdir string) []string {
	return policy.WritableTempRoots(tmpdir, p.ExcludeTmpdirEnvVar, p.ExcludeSlashTmp)
}

// projectRoots are the roots whose protected names are enforced: the
// project root and the configured roots, not the temporary directories (a
// placeholder .git in /tmp would turn every checkout below it into a
// broken repository).
func (p Policy) projectRoots() []string {
	if p.mode() != WorkspaceWrite {
		return nil
	}
	b, err := p.boundary("")
	if err != nil {
		return nil
	}
	return b.ProjectRoots()
}

// writableRoots are all directories the command may write below, given the
// TMPDIR of its environment.
func (p Policy) writableRoots(tmpdir string) []string {
	if p.mode() != WorkspaceWrite {
		return nil
	}
	b, err := p.boundary(tmpdir)
	if err != nil {
		return nil
	}
	return b.WritableRoots()
}

// protectedPath is one path to keep read-only.
type protectedPath struct {
	path    string
	missing bool // does not exist yet: must not become creatable
}

// protectedPaths lists what to keep read-only for the policy: each
// protected name at the top of a project root (a symlink is pinned as the
// link), plus the real directories behind them (a link's target, the git
// directories a `.git` file points to) when those lie inside a writable
// root; outside, Landlock already keeps them read-only.
func (p Policy) protectedPaths(tmpdir string) []protectedPath {
	if p.mode() != WorkspaceWrite {
		return nil
	}
	b, err := p.boundary(tmpdir)
	if err != nil {
		return nil
	}
	return protectedPathsIn(b)
}

// protectedPathsIn is protectedPaths for a boundary already built.
func protectedPathsIn(b *policy.Boundary) []protectedPath {
	if b.Mode() != WorkspaceWrite {
		return nil
	}
	writable, roots := b.WritableRoots(), b.ProjectRoots()
	var out []protectedPath
	seen := map[string]bool{}
	add := func(path string, missing bool) {
		if !seen[path] {
			seen[path] = true
			out = append(out, protectedPath{path: path, missing: missing})
		}
	}
	for _, pp := range b.Protected() {
		if slices.Contains(roots, filepath.Dir(pp.Path)) && slices.Contains(policy.ProtectedNames, filepath.Base(pp.Path)) {
			add(pp.Path, pp.Missing)
		}
		if !pp.Missing && policy.Under(pp.Real, writable) {
			add(pp.Real, false)
		}
	}
	return out
}

// under reports whether path lies inside one of the roots, symlinks of
// the roots resolved so both sides compare as the kernel sees them.
func under(path string, roots []string) bool {
	real := make([]string, 0, len(roots))
	for _, r := range roots {
		if rr, err := policy.Resolve(filepath.Clean(r)); err == nil {
			r = rr
		}
		real = append(real, r)
	}
	return policy.Under(path, real)
}
