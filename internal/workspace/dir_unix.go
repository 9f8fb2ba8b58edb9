//go:build unix

package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sys/unix"
)

// dirHandle is a directory reached without following a link: a descriptor
// for the *at calls (see nofollow.go).
type dirHandle struct{ fd int }

// openDir opens the directory at the real path dir for use with *at
// calls, refusing to follow a symbolic link at any component.
func openDir(dir string) (dirHandle, error) {
	if !filepath.IsAbs(dir) {
		return dirHandle{-1}, fmt.Errorf("open directory %s: not an absolute path", dir)
	}
	fd, err := unix.Open("/", dirOpenFlags|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return dirHandle{-1}, &fs.PathError{Op: "open", Path: "/", Err: err}
	}
	for _, name := range strings.Split(dir, "/") {
		if name == "" || name == "." {
			continue
		}
		if name == ".." {
			unix.Close(fd)
			return dirHandle{-1}, &fs.PathError{Op: "open", Path: dir, Err: errors.New("path is not clean")}
		}
		// With O_PATH, O_NOFOLLOW opens a final link itself rather than
		// failing, so the result is checked to be a directory.
		next, err := unix.Openat(fd, name, dirOpenFlags|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
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
			return dirHandle{-1}, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		unix.Close(fd)
		fd = next
	}
	return dirHandle{fd}, nil
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

func (d dirHandle) close() { unix.Close(d.fd) }

// openRead opens the file name for reading; a link there is ErrSymlink.
// It never waits on a named pipe nor takes a terminal (see regular.go);
// the caller checks the type.
func (d dirHandle) openRead(name string) (*os.File, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_CLOEXEC|unix.O_NONBLOCK|unix.O_NOCTTY, 0)
	if errors.Is(err, unix.ELOOP) {
		return nil, ErrSymlink
	}
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// createExcl creates the file name, which must not exist (not even as a
// link), for writing by this user alone.
func (d dirHandle) createExcl(name string) (*os.File, error) {
	fd, err := unix.Openat(d.fd, name, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), name), nil
}

// lstat returns the type and permission bits of name, a link not
// followed.
func (d dirHandle) lstat(name string) (fs.FileMode, error) {
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return 0, err
	}
	mode := fs.FileMode(st.Mode & 0o777)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
	case unix.S_IFDIR:
		mode |= fs.ModeDir
	case unix.S_IFLNK:
		mode |= fs.ModeSymlink
	default:
		mode |= fs.ModeIrregular
	}
	return mode, nil
}

// rename renames from over to, both in d; a link at to is replaced.
func (d dirHandle) rename(from, to string) error {
	return unix.Renameat(d.fd, from, d.fd, to)
}

// unlink removes the file (or link) name.
func (d dirHandle) unlink(name string) error { return unix.Unlinkat(d.fd, name, 0) }

// rmdir removes the empty directory name.
func (d dirHandle) rmdir(name string) error { return unix.Unlinkat(d.fd, name, unix.AT_REMOVEDIR) }

// mkdir creates the directory name.
func (d dirHandle) mkdir(name string) error { return unix.Mkdirat(d.fd, name, 0o755) }

// readDirNames lists a directory without following a link to it.
func readDirNames(dir string) ([]string, error) {
	d, err := openDir(filepath.Dir(dir))
	if err != nil {
		return nil, err
	}
	defer d.close()
	fd, err := unix.Openat(d.fd, filepath.Base(dir), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), dir)
	defer f.Close()
	return f.Readdirnames(-1)
}

// lockFile takes an exclusive flock on f; without wait it fails at once
// when another holds it.
func lockFile(f *os.File, wait bool) error {
	how := unix.LOCK_EX
	if !wait {
		how |= unix.LOCK_NB
	}
	return unix.Flock(int(f.Fd()), how)
}

// openJournalFile opens a journal file as os.OpenFile does.
func openJournalFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, flag, perm)
}
