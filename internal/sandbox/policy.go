package sandbox

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Sandbox modes, as in the sandboxMode policy of the protocol.
const (
	ReadOnly         = "read-only"
	WorkspaceWrite   = "workspace-write"
	DangerFullAccess = "danger-full-access"
)

// ProtectedNames are the entries kept read-only at the top of every project
// root (the cwd and the extra writable roots), whether they exist or not.
var ProtectedNames = []string{".git", ".agents", ".agent-ls"}

// Policy says what a sandboxed command may do.
type Policy struct {
	// Mode is ReadOnly, WorkspaceWrite (the default when empty) or
	// DangerFullAccess (no sandbox at all).
	Mode string
	// Cwd is the absolute directory the command runs in; in workspace-write
	// mode it is writable.
	Cwd string
	// WritableRoots are extra absolute directories writable in
	// workspace-write mode; relative ones are taken relative to Cwd.
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

func (p Policy) mode() string {
	if p.Mode == "" {
		return WorkspaceWrite
	}
	return p.Mode
}

func (p Policy) validate() error {
	switch p.mode() {
	case ReadOnly, WorkspaceWrite, DangerFullAccess:
	default:
		return fmt.Errorf("unknown sandbox mode %q (want %s, %s or %s)", p.Mode, ReadOnly, WorkspaceWrite, DangerFullAccess)
	}
	if !filepath.IsAbs(p.Cwd) {
		return fmt.Errorf("cwd %q is not an absolute path", p.Cwd)
	}
	return nil
}

// extraRoots returns the configured writable roots, absolute and cleaned.
func (p Policy) extraRoots() []string {
	var out []string
	for _, r := range p.WritableRoots {
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			r = filepath.Join(p.Cwd, r)
		}
		out = append(out, filepath.Clean(r))
	}
	return out
}

// projectRoots are the roots whose protected names are enforced: the cwd and
// the configured roots, not the temporary directories (a placeholder .git
// in /tmp would turn every checkout below it into a broken repository).
func (p Policy) projectRoots() []string {
	if p.mode() != WorkspaceWrite {
		return nil
	}
	return dedupe(append([]string{filepath.Clean(p.Cwd)}, p.extraRoots()...))
}

// writableRoots are all directories the command may write below, given the
// TMPDIR of its environment.
func (p Policy) writableRoots(tmpdir string) []string {
	if p.mode() != WorkspaceWrite {
		return nil
	}
	roots := append(p.projectRoots(), "/tmp")
	if tmpdir != "" && filepath.IsAbs(tmpdir) {
		roots = append(roots, filepath.Clean(tmpdir))
	}
	return dedupe(roots)
}

func dedupe(in []string) []string {
	seen := make(map[string]bool, len(in))
	out := in[:0:0]
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// protectedPath is one path to keep read-only.
type protectedPath struct {
	path    string
	missing bool // does not exist yet: must not become creatable
}

// protectedPaths lists what to keep read-only below the project roots: each
// protected name, plus the real git directories a `.git` file points to
// (a linked worktree's gitdir and the common dir holding hooks and config)
// when those lie inside a writable root; outside, Landlock already keeps
// them read-only.
func protectedPaths(projectRoots, writable []string) []protectedPath {
	var out []protectedPath
	seen := map[string]bool{}
	add := func(p string, missing bool) {
		if !seen[p] {
			seen[p] = true
			out = append(out, protectedPath{path: p, missing: missing})
		}
	}
	for _, root := range projectRoots {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		for _, name := range ProtectedNames {
			p := filepath.Join(root, name)
			fi, err := os.Lstat(p)
			if errors.Is(err, os.ErrNotExist) {
				add(p, true)
				continue
			}
			if err != nil {
				continue
			}
			add(p, false)
			if fi.Mode()&os.ModeSymlink != 0 {
				// The link itself is pinned; its target needs its own mount.
				if t, err := filepath.EvalSymlinks(p); err == nil && under(t, writable) {
					add(t, false)
				}
			}
			if name == ".git" && fi.Mode().IsRegular() {
				for _, d := range gitDirsFromFile(p) {
					if under(d, writable) {
						add(d, false)
					}
				}
			}
		}
	}
	return out
}

// gitDirsFromFile follows a `gitdir: DIR` file to the git directory and from
// there to its `commondir`, where a linked worktree keeps hooks and config.
func gitDirsFromFile(gitFile string) []string {
	line, err := firstLine(gitFile)
	if err != nil || !strings.HasPrefix(line, "gitdir:") {
		return nil
	}
	dir := strings.TrimSpace(strings.TrimPrefix(line, "gitdir:"))
	if dir == "" {
		return nil
	}
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(filepath.Dir(gitFile), dir)
	}
	dir, err = filepath.EvalSymlinks(dir)
	if err != nil {
		return nil
	}
	dirs := []string{dir}
	if common, err := firstLine(filepath.Join(dir, "commondir")); err == nil && common != "" {
		if !filepath.IsAbs(common) {
			common = filepath.Join(dir, common)
		}
		if common, err = filepath.EvalSymlinks(common); err == nil && common != dir {
			dirs = append(dirs, common)
		}
	}
	return dirs
}

func firstLine(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	if s.Scan() {
		return strings.TrimSpace(s.Text()), nil
	}
	return "", s.Err()
}

// under reports whether path lies inside one of the roots (symlinks in
// the roots resolved, so both sides compare as the kernel sees them).
func under(path string, roots []string) bool {
	for _, r := range roots {
		if rr, err := filepath.EvalSymlinks(r); err == nil {
			r = rr
		}
		rel, err := filepath.Rel(r, path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}
