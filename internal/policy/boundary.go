package policy

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// ProtectedNames are kept read-only wherever they stand below a writable
// root: a git repository's metadata (hooks and config run code outside the
// sandbox), and the agents' own instructions and settings, which the next
// session obeys.
var ProtectedNames = []string{".git", ".agents", ".agent-ls"}

// Boundary is a session's boundary: its project root, the roots it may
// write, and what stays protected inside them. Build it once per session
// with [NewBoundary]; it is safe for concurrent use.
type Boundary struct {
	mode SandboxMode
	// root is the project root as given (clean, absolute, links kept);
	// realRoot the same resolved.
	root, realRoot string
	// extra are the configured writable roots besides the project root
	// (clean and absolute); realExtra the same resolved.
	extra, realExtra []string
	// writable are the real roots that may be written in workspace-write
	// mode: the project root, the extra roots and the temporary
	// directories given (/tmp and $TMPDIR unless excluded).
	writable []string
	// own are agent-ls's own files and folders (see WithOwn).
	own []OwnPath
	// folders are the workspace folders besides the root (see
	// WithFolders); realFolders the same resolved.
	folders, realFolders []string
}

// NewBoundary returns the boundary of a session rooted at root (absolute)
// in the given mode. extraRoots are further writable roots (relative ones
// are taken against root); tempRoots are the temporary directories that
// are writable in workspace-write mode but are no project (see
// [WritableTempRoots]).
func NewBoundary(mode SandboxMode, root string, extraRoots, tempRoots []string) (*Boundary, error) {
	if _, err := ParseSandboxMode(string(mode)); err != nil {
		return nil, err
	}
	if mode == "" {
		mode = DefaultSandboxMode
	}
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("project root %q is not an absolute path", root)
	}
	b := &Boundary{mode: mode, root: filepath.Clean(root)}
	var err error
	if b.realRoot, err = Resolve(b.root); err != nil {
		return nil, fmt.Errorf("project root: %w", err)
	}
	for _, r := range extraRoots {
		if r == "" {
			continue
		}
		if !filepath.IsAbs(r) {
			r = filepath.Join(b.root, r)
		}
		r = filepath.Clean(r)
		real, err := Resolve(r)
		if err != nil {
			return nil, fmt.Errorf("writable root: %w", err)
		}
		if !slices.Contains(b.extra, r) {
			b.extra = append(b.extra, r)
			b.realExtra = append(b.realExtra, real)
		}
	}
	if mode == WorkspaceWrite {
		w := append([]string{b.realRoot}, b.realExtra...)
		for _, t := range tempRoots {
			if t == "" || !filepath.IsAbs(t) {
				continue
			}
			if real, err := Resolve(filepath.Clean(t)); err == nil {
				w = append(w, real)
			}
		}
		b.writable = dedupe(w)
	}
	return b, nil
}

// TempRoots are the temporary directories of a command that sees $TMPDIR
// as tmpdir ("" for none): /tmp and $TMPDIR. They are writable in
// workspace-write mode unless excluded (see [WritableTempRoots]); whether
// excluded or not, they are where host services keep their sockets.
func TempRoots(tmpdir string) []string {
	if tmpdir == "" || !filepath.IsAbs(tmpdir) {
		return []string{"/tmp"}
	}
	return []string{"/tmp", filepath.Clean(tmpdir)}
}

// WritableTempRoots are the temporary directories a command that sees
// $TMPDIR as tmpdir may write in workspace-write mode: /tmp unless
// excludeSlashTmp, and $TMPDIR unless excludeTmpdirEnvVar (the
// exclude_slash_tmp and exclude_tmpdir_env_var settings). Each is taken
// out on its own, as Codex does: a $TMPDIR below /tmp, or /tmp itself,
// stays writable when only /tmp is excluded.
func WritableTempRoots(tmpdir string, excludeTmpdirEnvVar, excludeSlashTmp bool) []string {
	var out []string
	if !excludeSlashTmp {
		out = append(out, "/tmp")
	}
	if !excludeTmpdirEnvVar && tmpdir != "" && filepath.IsAbs(tmpdir) {
		out = append(out, filepath.Clean(tmpdir))
	}
	return out
}

// Mode is the session's sandbox mode.
func (b *Boundary) Mode() SandboxMode { return b.mode }

// Root is the project root, as given.
func (b *Boundary) Root() string { return b.root }

// ExtraRoots are the configured writable roots besides the project root,
// absolute, as given.
func (b *Boundary) ExtraRoots() []string { return slices.Clone(b.extra) }

// ProjectRoots are the roots whose protected names the sandbox keeps
// read-only: the project root and the extra roots (not /tmp: a read-only
// .git there would break every checkout below it), as given.
func (b *Boundary) ProjectRoots() []string {
	return dedupe(append([]string{b.root}, b.extra...))
}

// WritableRoots are the real directories that may be written below in
// workspace-write mode; none in read-only mode, and "/" with no sandbox.
func (b *Boundary) WritableRoots() []string {
	switch b.mode {
	case DangerFullAccess:
		return []string{"/"}
	case ReadOnly:
		return nil
	}
	return slices.Clone(b.writable)
}

// Contains reports whether path (absolute) lies inside the project root
// or one of the other workspace folders (see WithFolders) once its
// symlinks are resolved.
func (b *Boundary) Contains(path string) bool {
	real, err := Resolve(filepath.Clean(path))
	return err == nil && (within(b.realRoot, real) || Under(real, b.realFolders))
}

// Target is a path resolved against the boundary for writing.
type Target struct {
	// Path is the path as asked for (clean, absolute).
	Path string
	// Real is where a write to Path lands: its symlinks resolved.
	Real string
	// Writable: the session may write Real without asking.
	Writable bool
	// Why says, when Writable is false, why not, naming the real target.
	Why string
}

// Target resolves path (absolute) and says whether the session may write
// it without asking: its real target must lie in a writable root and not
// at or below a protected name (nor in the git directory that a .git file
// of a project root points to). With no sandbox everything is writable;
// in read-only mode nothing is.
func (b *Boundary) Target(path string) Target {
	t := Target{Path: filepath.Clean(path)}
	real, err := Resolve(t.Path)
	if err != nil {
		t.Real, t.Why = t.Path, err.Error()
		return t
	}
	t.Real = real
	switch b.mode {
	case DangerFullAccess:
		t.Writable = true
		return t
	case ReadOnly:
		t.Why = "the sandbox mode is read-only"
		return t
	}
	where := t.Path
	if real != t.Path {
		where = fmt.Sprintf("%s (a symbolic link to %s)", t.Path, real)
	}
	if o, ok := b.ownAt(real); ok {
		t.Why = ownWhy(where, o)
		return t
	}
	if prot := b.protectedAt(real); prot != "" {
		t.Why = fmt.Sprintf("%s is inside %s, which is protected: it holds repository hooks and configuration or the agent's own instructions, which run or are obeyed outside the sandbox", where, prot)
		return t
	}
	for _, w := range b.writable {
		if within(w, real) {
			t.Writable = true
			return t
		}
	}
	t.Why = fmt.Sprintf("%s is outside the writable folders (%s)", where, strings.Join(b.writable, ", "))
	return t
}

// ProtectedAt returns the protected path that path (absolute) lies at or
// below once its symlinks are resolved, or "" when there is none: what
// Target refuses as protected, agent-ls's own paths included.
func (b *Boundary) ProtectedAt(path string) string {
	real, err := Resolve(filepath.Clean(path))
	if err != nil {
		return ""
	}
	if o, ok := b.ownAt(real); ok {
		return o.Real
	}
	return b.protectedAt(real)
}

// protectedAt returns the protected path that real (resolved) lies at or
// below, or "": a protected name anywhere below a writable root, the real
// target of a project root's protected name, or the git directory a .git
// file of a project root points to.
func (b *Boundary) protectedAt(real string) string {
	for _, p := range b.Protected() {
		if within(p.Real, real) {
			return p.Real
		}
	}
	for _, w := range b.writable {
		if !within(w, real) {
			continue
		}
		parts := strings.Split(relBelow(w, real), "/")
		for i, part := range parts {
			if slices.Contains(ProtectedNames, part) {
				return filepath.Join(w, filepath.Join(parts[:i+1]...))
			}
		}
	}
	return ""
}

// Protected is a protected path of a project root.
type Protected struct {
	// Path is where it stands: ROOT/NAME, or a git directory that a .git
	// file points to.
	Path string
	// Real is Path with its symlinks resolved.
	Real string
	// Missing: nothing exists at Path yet (it must not become creatable).
	Missing bool
}

// Protected lists, for each project root, the protected names and the git
// directories a .git file points to (a linked worktree's gitdir and the
// common directory that holds hooks and config). It reads the disk on
// every call: a repository may appear during the session.
func (b *Boundary) Protected() []Protected {
	var out []Protected
	seen := map[string]bool{}
	add := func(path string, missing bool) {
		if seen[path] {
			return
		}
		seen[path] = true
		real := path
		if r, err := Resolve(path); err == nil {
			real = r
		}
		out = append(out, Protected{Path: path, Real: real, Missing: missing})
	}
	for _, root := range b.ProjectRoots() {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		for _, name := range ProtectedNames {
			p := filepath.Join(root, name)
			fi, err := os.Lstat(p)
			if err != nil {
				add(p, os.IsNotExist(err))
				continue
			}
			add(p, false)
			if name == ".git" && fi.Mode().IsRegular() {
				for _, d := range GitDirsFromFile(p) {
					add(d, false)
				}
			}
		}
	}
	return out
}

// GitDirsFromFile follows a `gitdir: DIR` file to the git directory and
// from there to its `commondir`, where a linked worktree keeps hooks and
// config. The directories come back resolved.
func GitDirsFromFile(gitFile string) []string {
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

// Under reports whether path (resolved) lies at or below one of roots
// (resolved as well).
func Under(path string, roots []string) bool {
	for _, r := range roots {
		if within(r, path) {
			return true
		}
	}
	return false
}
