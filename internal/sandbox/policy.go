package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// Sandbox modes, as in the sandboxMode policy of the protocol.
const (
	ReadOnly         = policy.ReadOnly
	WorkspaceWrite   = policy.WorkspaceWrite
	DangerFullAccess = policy.DangerFullAccess
)

// ProtectedNames are the entries kept read-only at the top of every project
// root (the project root and the extra writable roots), whether they exist
// or not.
var ProtectedNames = policy.ProtectedNames

// Policy says what a sandboxed command may do. What is writable and what
// is protected is the session's [policy.Boundary], rebuilt in the helper
// from Mode, Root and WritableRoots; Cwd only says where the command runs.
type Policy struct {
	// Mode is ReadOnly, WorkspaceWrite (the default when empty) or
	// DangerFullAccess (no sandbox at all).
	Mode policy.SandboxMode
	// Root is the absolute project root: writable in workspace-write mode,
	// its .git, .agents and .agent-ls protected. Empty means Cwd.
	Root string
	// Cwd is the absolute directory the command runs in. It chooses where
	// the command runs, never what is writable.
	Cwd string
	// WritableRoots are extra absolute directories writable in
	// workspace-write mode; relative ones are taken relative to Root.
	WritableRoots []string
	// Network lets the command open network sockets.
	Network bool
	// NoNamespace skips the user and mount namespace even where the kernel
	// offers it: Landlock and seccomp only, protected paths unenforced.
	NoNamespace bool
	// CacheRoot is the writable directory holding the command's toolchain
	// caches in workspace-write mode (see CacheEnv); empty means
	// DefaultCacheRoot of the command's environment.
	CacheRoot string
}

// PolicyFor is the policy of a command that runs in cwd inside the
// session boundary b.
func PolicyFor(b *policy.Boundary, cwd string, network bool) Policy {
	return Policy{Mode: b.Mode(), Root: b.Root(), Cwd: cwd, WritableRoots: b.ExtraRoots(), Network: network}
}

func (p Policy) mode() policy.SandboxMode {
	if p.Mode == "" {
		return policy.DefaultSandboxMode
	}
	return p.Mode
}

func (p Policy) root() string {
	if p.Root == "" {
		return filepath.Clean(p.Cwd)
	}
	return filepath.Clean(p.Root)
}

func (p Policy) validate() error {
	if _, err := policy.ParseSandboxMode(string(p.Mode)); err != nil {
		return err
	}
	if !filepath.IsAbs(p.Cwd) {
		return fmt.Errorf("cwd %q is not an absolute path", p.Cwd)
	}
	if p.Root != "" && !filepath.IsAbs(p.Root) {
		return fmt.Errorf("project root %q is not an absolute path", p.Root)
	}
	return nil
}

// boundary is the session boundary the policy describes, given the TMPDIR
// of the command's environment.
func (p Policy) boundary(tmpdir string) (*policy.Boundary, error) {
	return policy.NewBoundary(p.mode(), p.root(), p.WritableRoots, policy.TempRoots(tmpdir))
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

// SandboxMode is the type of Policy.Mode.
type SandboxMode = policy.SandboxMode

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
