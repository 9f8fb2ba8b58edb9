package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// cacheRootName is where, below the user's cache directory, sandboxed
// commands keep their toolchain caches.
var cacheRootName = filepath.Join("agent-ls", "sandbox")

// cacheVars are the variables CacheEnv points into the cache root, each at
// its own subdirectory. Tools that follow the XDG base directories (ccache,
// pre-commit, yarn, ...) land below XDG_CACHE_HOME.
var cacheVars = []struct{ name, dir string }{
	{"GOCACHE", "go-build"},
	{"PIP_CACHE_DIR", "pip"},
	{"npm_config_cache", "npm"},
	{"XDG_CACHE_HOME", "xdg"},
}

// outputVars name directories a tool writes its results to; when one points
// outside the writable roots it is dropped, so the tool falls back to its
// default (the workspace for CARGO_TARGET_DIR, $TMPDIR for GOTMPDIR) rather
// than failing on a read-only directory.
var outputVars = []string{"GOTMPDIR", "CARGO_TARGET_DIR"}

// DefaultCacheRoot is the per-user directory that holds the toolchain
// caches of sandboxed commands, given the command's environment:
// $XDG_CACHE_HOME/agent-ls/sandbox, else $HOME/.cache/agent-ls/sandbox. It
// is empty when the environment names neither.
func DefaultCacheRoot(env []string) string {
	root, _ := defaultCacheRoot(env)
	return root
}

// defaultCacheRoot also returns the directory that must exist already for
// the root to be created below it: HOME, or the parent of XDG_CACHE_HOME
// (a HOME such as nobody's /nonexistent is not to be made up).
func defaultCacheRoot(env []string) (root, base string) {
	if d, ok := lookupEnv(env, "XDG_CACHE_HOME"); ok && filepath.IsAbs(d) {
		return filepath.Join(d, cacheRootName), filepath.Dir(filepath.Clean(d))
	}
	if h, ok := lookupEnv(env, "HOME"); ok && filepath.IsAbs(h) {
		return filepath.Join(h, ".cache", cacheRootName), h
	}
	return "", ""
}

// userCaches are the caches of the user's own (unsandboxed) builds named
// by env, which a cache root must never contain: a sandboxed command could
// otherwise poison an entry that a build outside the sandbox later trusts.
func userCaches(env []string) []string {
	var out []string
	add := func(p string) {
		if filepath.IsAbs(p) {
			out = append(out, filepath.Clean(p))
		}
	}
	if home, ok := lookupEnv(env, "HOME"); ok && filepath.IsAbs(home) {
		for _, d := range []string{".cache/go-build", ".cache/pip", ".npm", ".cargo"} {
			add(filepath.Join(home, d))
		}
	}
	if xdg, ok := lookupEnv(env, "XDG_CACHE_HOME"); ok {
		add(filepath.Join(xdg, "go-build"))
		add(filepath.Join(xdg, "pip"))
	}
	for _, v := range cacheVars {
		if d, ok := lookupEnvFold(env, v.name); ok && v.name != "XDG_CACHE_HOME" {
			add(d)
		}
	}
	return out
}

// prepareCacheRoot makes sure root exists as a directory of this user's
// that only this user can write, that holds none of the user's own caches
// and is neither in nor around a path the boundary b keeps protected, and
// pins it: it returns the very directory it checked, opened with O_PATH,
// for the Landlock rule (the helper gets it as a descriptor), so that
// nothing swapped in meanwhile gets the write access. Where root lies
// below a writable root (the fallback in /tmp), a sandboxed command could
// have planted a symlink on the way to lead the next command's writable
// cache anywhere: there no symlink is followed.
func prepareCacheRoot(root string, env, writable []string, b *policy.Boundary) (*os.File, error) {
	if !filepath.IsAbs(root) {
		return nil, fmt.Errorf("cache root %q is not an absolute path", root)
	}
	root = filepath.Clean(root)
	holds := func(dir string) error {
		for _, c := range userCaches(env) {
			real, err := filepath.EvalSymlinks(c)
			if err != nil {
				real = c
			}
			if within(c, dir) || within(real, dir) {
				return fmt.Errorf("cache root %s holds the user's own cache %s; sandboxed commands must never write there", root, c)
			}
		}
		return protectedCacheRoot(root, dir, b)
	}
	if err := holds(root); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(root); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("cache root %s is not a directory", root)
	}
	if err := os.MkdirAll(root, 0o700); err != nil {
		return nil, fmt.Errorf("cache root %s: %w", root, err)
	}
	how := unix.OpenHow{Flags: unix.O_PATH | unix.O_DIRECTORY | unix.O_CLOEXEC}
	if plantable(root, writable) {
		how.Resolve = unix.RESOLVE_NO_SYMLINKS
	}
	fd, err := unix.Openat2(unix.AT_FDCWD, root, &how)
	if err != nil {
		return nil, fmt.Errorf("cache root %s: %w", root, err)
	}
	pinned := "/proc/self/fd/" + strconv.Itoa(fd)
	fail := func(err error) (*os.File, error) {
		unix.Close(fd)
		return nil, err
	}
	// Where the directory really is, symlinks on the way resolved.
	real, err := os.Readlink(pinned)
	if err != nil {
		return fail(err)
	}
	if err := holds(real); err != nil {
		return fail(err)
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fail(err)
	}
	if int(st.Uid) != os.Geteuid() || st.Mode&0o022 != 0 {
		return fail(fmt.Errorf("cache root %s belongs to uid %d with mode %o; want this user's and writable by it alone", root, st.Uid, st.Mode&0o777))
	}
	return os.NewFile(uintptr(fd), real), nil
}

// protectedCacheRoot refuses a cache root (dir, as given or resolved) at
// or below a path the boundary keeps read-only (a project's .git, .agents
// or .agent-ls, a git directory a .git file names), or holding one: the
// cache root is writable as a whole, so it would open them to every
// command, and to a command that runs where no mount namespace pins them.
func protectedCacheRoot(root, dir string, b *policy.Boundary) error {
	if b == nil {
		return nil
	}
	if prot := b.ProtectedAt(dir); prot != "" {
		return fmt.Errorf("cache root %s is inside %s, which stays read-only in the sandbox", root, prot)
	}
	for _, p := range b.Protected() {
		if within(p.Path, dir) || within(p.Real, dir) {
			return fmt.Errorf("cache root %s holds %s, which stays read-only in the sandbox", root, p.Path)
		}
	}
	return nil
}

// plantable reports whether a component of path lies strictly below one
// of the writable roots, where a sandboxed command can replace it.
func plantable(path string, writable []string) bool {
	for _, w := range writable {
		if w = filepath.Clean(w); path != w && within(path, w) {
			return true
		}
	}
	return false
}

// fallbackCacheRoot is used when the environment names no usable cache
// directory (no HOME, or one that does not exist, as for nobody): a
// directory of this user's below $TMPDIR, else /tmp, whichever p leaves
// writable; "" when p excludes both (the user asked for nothing in them
// to be writable).
func fallbackCacheRoot(p Policy, env []string) string {
	tmpdir, _ := lookupEnv(env, "TMPDIR")
	temps := p.tempRoots(tmpdir)
	if len(temps) == 0 {
		return ""
	}
	// $TMPDIR comes last when it is there.
	return filepath.Join(temps[len(temps)-1], "agent-ls-"+strconv.Itoa(os.Geteuid()), "sandbox")
}

// cacheRootCandidates are the cache roots to try, in order, for a command
// under p (whose CacheRoot is empty) with env; none when neither HOME nor
// a writable temporary directory offers one.
func cacheRootCandidates(p Policy, env []string) []string {
	var out []string
	root, base := defaultCacheRoot(env)
	if fi, err := os.Stat(base); base != "" && err == nil && fi.IsDir() {
		out = append(out, root)
	}
	if fb := fallbackCacheRoot(p, env); fb != "" {
		out = append(out, fb)
	}
	return out
}

// cacheRootOf is the cache root a command under p with env would get: the
// explicit one, else the first candidate; "" for none.
func cacheRootOf(p Policy, env []string) string {
	if p.CacheRoot != "" {
		return filepath.Clean(p.CacheRoot)
	}
	if c := cacheRootCandidates(p, env); len(c) > 0 {
		return c[0]
	}
	return ""
}

// commandCaches gives a workspace-write command under p, inside the
// boundary b, its own toolchain caches: it picks and creates the cache
// root (p.CacheRoot, or DefaultCacheRoot of env with fallbackCacheRoot
// behind it) and returns env rewritten by CacheEnv and the cache root,
// pinned (see prepareCacheRoot; its Name is where it is), for the caller
// to close. An explicit root that cannot be used is an error naming the
// setting; without one the command runs with the environment as it is
// (its tools then find their caches read-only) and the root is nil.
func commandCaches(p Policy, b *policy.Boundary, env, writable []string) ([]string, *os.File, error) {
	var pinned *os.File
	root := p.CacheRoot
	if root != "" {
		var err error
		if pinned, err = prepareCacheRoot(root, env, writable, b); err != nil {
			return nil, nil, fmt.Errorf("toolchain caches (the cache_root setting): %w", err)
		}
	} else {
		for _, r := range cacheRootCandidates(p, env) {
			if f, err := prepareCacheRoot(r, env, writable, b); err == nil {
				root, pinned = r, f
				break
			}
		}
		if root == "" {
			return env, nil, nil
		}
	}
	return CacheEnv(env, filepath.Clean(root), writable), pinned, nil
}

// CacheEnv returns env for a sandboxed command whose toolchain caches live
// below root: GOCACHE, PIP_CACHE_DIR, npm_config_cache and XDG_CACHE_HOME
// point to subdirectories of root, and GOTMPDIR and CARGO_TARGET_DIR are
// dropped when they name a directory outside the writable roots. Module
// caches (GOMODCACHE, ~/.cargo/registry) are left where they are: the
// command reads them, and nothing points it anywhere else.
func CacheEnv(env []string, root string, writable []string) []string {
	drop := map[string]bool{}
	for _, v := range cacheVars {
		drop[v.name] = true
	}
	for _, name := range outputVars {
		if d, ok := lookupEnv(env, name); ok && !(filepath.IsAbs(d) && within(d, writable...)) {
			drop[name] = true
		}
	}
	out := make([]string, 0, len(env)+len(cacheVars))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		// npm reads npm_config_* in any case: drop every spelling.
		if !drop[name] && !strings.EqualFold(name, "npm_config_cache") {
			out = append(out, kv)
		}
	}
	for _, v := range cacheVars {
		out = append(out, v.name+"="+filepath.Join(root, v.dir))
	}
	return out
}

// within reports whether path is one of roots or lies below one, comparing
// clean paths as written.
func within(path string, roots ...string) bool {
	path = filepath.Clean(path)
	for _, r := range roots {
		rel, err := filepath.Rel(filepath.Clean(r), path)
		if err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return true
		}
	}
	return false
}

// lookupEnvFold is lookupEnv with the name compared without case.
func lookupEnvFold(env []string, key string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && strings.EqualFold(k, key) {
			return v, true
		}
	}
	return "", false
}

// explainCaches is the part of Explain about the toolchain caches.
func explainCaches(line func(string, ...any), p Policy, env []string) {
	root := cacheRootOf(p, env)
	if root == "" {
		line("caches:   none writable: no home directory, and /tmp and $TMPDIR are excluded;")
		line("          the toolchains find their caches read-only (set cache_root)")
		return
	}
	var names []string
	for _, v := range cacheVars {
		names = append(names, v.name)
	}
	line("caches:   %s (writable; %s point below it)", root, strings.Join(names, ", "))
	line("          the user's own build caches stay read-only: an entry a sandboxed")
	line("          command wrote there could later run outside the sandbox.")
	line("          Downloaded modules (GOMODCACHE, ~/.cargo/registry) stay readable")
	line("          where they are; with the network off nothing new is downloaded.")
}
