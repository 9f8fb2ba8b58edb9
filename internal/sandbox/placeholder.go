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
// The runner removes a placeholder as soon as the last command that needed
// it has been waited for: keeping it longer would save the directories'
// create/delete (about 0.3 ms each on an ext4 mounted with discard), but
// leaves them behind whenever the process exits first, and while the .git
// socket exists a `git init` outside the sandbox fails.

// placeholderXattr marks placeholder directories, so that cleanup after a
// crash (RemovePlaceholders) never deletes a directory the user made.
const placeholderXattr = "user.agent-ls.placeholder"

type placeholderRegistry struct {
	mu    sync.Mutex
	users map[string]*placeholderEntry
}

type placeholderEntry struct {
	count    int
	dev, ino uint64
}

var placeholders = placeholderRegistry{users: map[string]*placeholderEntry{}}

// acquire makes sure each missing path has a placeholder and counts one more
// user of it; it returns the placeholders now in use, for the helper's
// --placeholder flags, and a release function.
func (r *placeholderRegistry) acquire(paths []protectedPath) ([]string, func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var held []string
	for _, p := range paths {
		e := r.users[p.path]
		if e == nil {
			if !p.missing {
				continue
			}
			st, err := createPlaceholder(p.path)
			if err != nil {
				// Not creatable by us, so not by the command either.
				continue
			}
			e = &placeholderEntry{dev: st.Dev, ino: st.Ino}
			r.users[p.path] = e
		}
		e.count++
		held = append(held, p.path)
	}
	var once sync.Once
	return held, func() { once.Do(func() { r.release(held) }) }
}

func (r *placeholderRegistry) release(held []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, path := range held {
		e := r.users[path]
		if e == nil {
			continue
		}
		if e.count--; e.count > 0 {
			continue
		}
		r.remove(path, e)
	}
}

// remove deletes the placeholder if it is still the one this process made.
// Called with r.mu held.
func (r *placeholderRegistry) remove(path string, e *placeholderEntry) {
	delete(r.users, path)
	var st unix.Stat_t
	if unix.Lstat(path, &st) == nil && st.Dev == e.dev && st.Ino == e.ino {
		_ = removePlaceholder(path, st.Mode&unix.S_IFMT == unix.S_IFDIR)
	}
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

// isPlaceholder tells a leftover placeholder from the user's own files: a
// socket named .git, or an empty directory carrying placeholderXattr.
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

// RemovePlaceholders deletes placeholders left below the policy's project
// roots by a process that died before it could clean up; those of commands
// this process runs are kept. Another agent-ls process running a sandboxed
// command in the same roots would lose the protection of its missing
// paths, so call this at start-up.
func RemovePlaceholders(p Policy) error {
	placeholders.mu.Lock()
	defer placeholders.mu.Unlock()
	var errs []error
	for _, root := range p.projectRoots() {
		for _, name := range ProtectedNames {
			path := filepath.Join(root, name)
			if placeholders.users[path] != nil {
				continue
			}
			ok, dir := isPlaceholder(path)
			if !ok {
				continue
			}
			if err := removePlaceholder(path, dir); err != nil && !errors.Is(err, unix.ENOTEMPTY) && !errors.Is(err, unix.ENOENT) {
				errs = append(errs, &os.PathError{Op: "remove", Path: path, Err: err})
			}
		}
	}
	return errors.Join(errs...)
}
