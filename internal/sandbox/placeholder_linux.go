package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// A protected path that does not exist yet cannot be made uncreatable
// without something to mount on, so while a sandboxed command runs the
// runner puts a placeholder there on the host and the helper covers it:
//
//   - .git: the placeholder is a Unix socket file and the sandbox sees a
//     read-only /dev/null. Neither is a directory or a regular file, so git
//     treats both as "no repository here" and keeps looking in the parent
//     directories, Go's VCS stamping ignores them, nothing can be created
//     below them, and opening them never blocks. (An empty directory would
//     make `go build` fail with "error obtaining VCS status"; an empty
//     regular file makes git die with "invalid gitfile format".)
//   - .agents, .agent-ls: the placeholder is an empty directory, which the
//     sandbox sees read-only.
//
// Placeholders are shared: every command that needs one while it exists
// uses it, whichever agent-ls process made it, and the last command out
// removes it (owner_linux.go says how, with liveness from flock). Keeping them
// longer would save the directories' create/delete (about 0.3 ms each on
// an ext4 mounted with discard), but while the .git socket exists a
// `git init` outside the sandbox fails.

// placeholderXattr marks placeholder directories, so that cleanup never
// deletes a directory the user made.
const placeholderXattr = "user.agent-ls.placeholder"

// holdPlaceholders makes sure each missing path has a placeholder for a
// command about to start, holding its root's lock shared until release.
// It returns the placeholders in use, for the helper's --placeholder flags.
func holdPlaceholders(paths []protectedPath) ([]string, func(), error) {
	var (
		held  []string
		locks []*rootLock
		byDir = map[string]*rootLock{}
	)
	release := func() {
		for _, l := range locks {
			if l.fd < 0 {
				l.removeOwn()
				continue
			}
			l.close()
			// The last one out cleans up.
			if ex, err := lockRoot(l.root, true); err == nil {
				_ = ex.cleanup()
				ex.close()
			}
		}
	}
	for _, p := range paths {
		if !p.missing && !mayBePlaceholder(p.path) {
			continue
		}
		dir := filepath.Dir(p.path)
		l := byDir[dir]
		if l == nil {
			var err error
			if l, err = lockRoot(dir, false); isDenied(err) {
				// Inside another sandbox (agent-ls testing itself) the
				// lock directory is read-only: fall back to placeholders
				// of this command alone.
				l, err = &rootLock{root: dir, fd: -1, own: map[string]devIno{}}, nil
			}
			if err != nil {
				release()
				return nil, nil, err
			}
			byDir[dir] = l
			locks = append(locks, l)
		}
		// Under the lock nothing is removed: look again.
		if ok, _ := placeholderAt(p.path, l.records()); ok {
			held = append(held, p.path) // another command's: share it
			continue
		}
		st, err := createPlaceholder(p.path)
		if err == nil {
			l.record(p.path, st)
			held = append(held, p.path)
		}
		// EEXIST: the user's own entry, which the helper pins as it is.
		// Anything else: not creatable by us, so not by the command either.
	}
	var once sync.Once
	return held, func() { once.Do(release) }, nil
}

// createPlaceholder creates the host-side placeholder for a missing
// protected path (see above).
func createPlaceholder(path string) (unix.Stat_t, error) {
	var st unix.Stat_t
	if filepath.Base(path) == ".git" {
		fd, err := unix.Socket(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
		if err != nil {
			return st, err
		}
		err = unix.Bind(fd, &unix.SockaddrUnix{Name: path})
		unix.Close(fd)
		if err != nil {
			return st, fmt.Errorf("placeholder %s: %w", path, err)
		}
		_ = unix.Fchmodat(unix.AT_FDCWD, path, 0, 0)
	} else {
		if err := unix.Mkdir(path, 0o755); err != nil {
			return st, fmt.Errorf("placeholder %s: %w", path, err)
		}
		_ = unix.Setxattr(path, placeholderXattr, []byte("1"), 0)
	}
	return st, unix.Lstat(path, &st)
}

func removePlaceholder(path string, dir bool) error {
	if dir {
		return unix.Rmdir(path) // fails, harmlessly, if something is inside
	}
	return unix.Unlink(path)
}

// mayBePlaceholder is a quick look, without the lock, at an existing
// protected path: could it be a placeholder (see placeholderAt)?
func mayBePlaceholder(path string) bool {
	if ok, _ := isPlaceholder(path); ok {
		return true
	}
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFDIR {
		return false
	}
	_, err := unix.Lgetxattr(path, placeholderXattr, make([]byte, 8))
	return errors.Is(err, unix.ENOTSUP)
}

// isPlaceholder tells a placeholder from the user's own files: a socket
// named .git, or a directory carrying placeholderXattr.
func isPlaceholder(path string) (bool, bool) {
	var st unix.Stat_t
	if unix.Lstat(path, &st) != nil {
		return false, false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFSOCK:
		return filepath.Base(path) == ".git", false
	case unix.S_IFDIR:
		buf := make([]byte, 8)
		_, err := unix.Lgetxattr(path, placeholderXattr, buf)
		return err == nil, true
	}
	return false, false
}

// RemovePlaceholders deletes the placeholders that agent-ls processes
// which died before they could clean up left below the policy's project
// roots. Placeholders a live process's command relies on are kept: while
// any command runs in a root, nothing there is removed. Call it at
// start-up.
func RemovePlaceholders(p Policy) error {
	var errs []error
	for _, root := range p.projectRoots() {
		if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
			continue
		}
		l, err := lockRoot(root, true)
		if errors.Is(err, errLockBusy) {
			continue
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		errs = append(errs, l.cleanup())
		l.close()
	}
	return errors.Join(errs...)
}
