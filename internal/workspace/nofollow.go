package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// The disk is changed only through the functions below, on real paths
// (their symlinks resolved when the change was decided, see
// FileChange.Real), and none of them follows a symbolic link: directories
// are opened one component at a time with O_NOFOLLOW, files are read with
// O_NOFOLLOW, replaced by renameat and removed by unlinkat, which act on a
// final link itself. A link planted after the decision (by a command, or
// by a race) makes the write fail instead of carrying it out of the
// workspace.

// ErrSymlink says a symbolic link stood where a change expected a
// directory or a file; nothing was followed.
var ErrSymlink = errors.New("a symbolic link stands in the way; it was not followed")

// openDir opens the directory at the real path dir for use with *at
// calls, refusing to follow a symbolic link at any component.
func openDir(dir string) (int, error) {
	if !filepath.IsAbs(dir) {
		return -1, fmt.Errorf("open directory %s: not an absolute path", dir)
	}
	fd, err := unix.Open("/", unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: "/", Err: err}
	}
	for _, name := range strings.Split(dir, "/") {
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			unix.Close(fd)
			return -1, &fs.PathError{Op: "open", Path: dir, Err: errors.New("path is not clean")}
		}
		// With O_PATH, O_NOFOLLOW opens a final link itself rather than
		// failing, so the result is checked to be a directory.
		next, err := unix.Openat(fd, name, unix.O_PATH|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err == nil {
			var st unix.Stat_t
			if err = unix.Fstat(next, &st); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
				err = unix.ENOTDIR
			}
			if err != nil {
				unix.Close(next)
			}
		}
		if err != nil {
			err = linkErr(fd, name, err)
			unix.Close(fd)
			return -1, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		unix.Close(fd)
		fd = next
	}
	return fd, nil
}

// linkErr turns the errno of an O_NOFOLLOW|O_DIRECTORY open into
// ErrSymlink when a symbolic link was what stood there.
func linkErr(dirfd int, name string, err error) error {
	if errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
		var st unix.Stat_t
		if unix.Fstatat(dirfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK {
			return ErrSymlink
		}
	}
	return err
}

// readReal returns what the real path holds, without following a link
// anywhere: its content, or exists false.
func readReal(path string) (content []byte, exists bool, err error) {
	dirfd, err := openDir(filepath.Dir(path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, unix.ENOTDIR) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	defer unix.Close(dirfd)
	fd, err := unix.Openat(dirfd, filepath.Base(path), unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	switch {
	case errors.Is(err, unix.ENOENT):
		return nil, false, nil
	case errors.Is(err, unix.ELOOP):
		return nil, false, fmt.Errorf("read %s: %w", path, ErrSymlink)
	case err != nil:
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	return b, true, nil
}

// modeOf returns the permission bits of the real path, not following a
// final link.
func modeOf(path string) (fs.FileMode, error) {
	dirfd, err := openDir(filepath.Dir(path))
	if err != nil {
		return 0, err
	}
	defer unix.Close(dirfd)
	var st unix.Stat_t
	if err := unix.Fstatat(dirfd, filepath.Base(path), &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return fs.FileMode(st.Mode & 0o7777).Perm(), nil
}

var tmpCounter atomic.Uint64

// renameAt is unix.Renameat; tests replace it to make a write fail
// part-way.
var renameAt = func(dirfd int, from, to string) error {
	return unix.Renameat(dirfd, from, dirfd, to)
}

// removeReal deletes the file at the real path (a link there is removed,
// not followed).
func removeReal(path string) error {
	dirfd, err := openDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("delete %s: %w", path, unwrapPath(err))
	}
	defer unix.Close(dirfd)
	if err := unix.Unlinkat(dirfd, filepath.Base(path), 0); err != nil {
		return &fs.PathError{Op: "delete", Path: path, Err: err}
	}
	return nil
}

// removeDirReal deletes the empty directory at the real path.
func removeDirReal(path string) error {
	dirfd, err := openDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	if err := unix.Unlinkat(dirfd, filepath.Base(path), unix.AT_REMOVEDIR); err != nil {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// mkdirReal creates the directory at the real path; its parent must
// exist.
func mkdirReal(path string) error {
	dirfd, err := openDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer unix.Close(dirfd)
	if err := unix.Mkdirat(dirfd, filepath.Base(path), 0o755); err != nil {
		return &fs.PathError{Op: "mkdir", Path: path, Err: err}
	}
	return nil
}

// dirState tells whether the real path is a directory (a link is not),
// is missing, or is something else.
func dirState(path string) (isDir, exists bool, err error) {
	if path == "/" {
		return true, true, nil
	}
	dirfd, err := openDir(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) || (errors.Is(err, unix.ENOTDIR) && !errors.Is(err, ErrSymlink)) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	defer unix.Close(dirfd)
	var st unix.Stat_t
	err = unix.Fstatat(dirfd, filepath.Base(path), &st, unix.AT_SYMLINK_NOFOLLOW)
	if errors.Is(err, unix.ENOENT) {
		return false, false, nil
	}
	if err != nil {
		return false, false, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return st.Mode&unix.S_IFMT == unix.S_IFDIR, true, nil
}
