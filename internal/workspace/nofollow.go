package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"sync/atomic"
	"syscall"
)

// The disk is changed only through the functions below, on real paths
// (their symlinks resolved when the change was decided, see
// FileChange.Real), and none of them follows a symbolic link: the
// directory is reached through a dirHandle (openDir), which refuses a link
// at any component, and the final name is read without following a link,
// replaced by a rename and removed by an unlink, which act on a final
// link itself. A link planted after the decision (by a command, or by a
// race) makes the write fail instead of carrying it out of the workspace.
//
// How each system keeps that:
//
//   - Linux: every component is opened with openat(O_PATH|O_NOFOLLOW|
//     O_DIRECTORY) from the previous one, and the file operations are the
//     *at calls on the last descriptor, so the path is never resolved
//     again and no link is followed anywhere.
//   - macOS and the BSDs: the same, with O_RDONLY instead of O_PATH (which
//     they lack), so every directory on the way must be readable.
//   - Windows: every component from the volume root is opened without
//     following a reparse point (FILE_FLAG_OPEN_REPARSE_POINT) and refused
//     if it is one (a symbolic link, a junction, a mount point) or not a
//     directory; the handles are held, without FILE_SHARE_DELETE, until
//     the operation is done, so no component can be renamed, removed or
//     replaced meanwhile, and the operation then names the file by its
//     full path, which resolves through exactly the directories checked.
//     The final name is opened, created (CREATE_NEW) and checked with
//     FILE_FLAG_OPEN_REPARSE_POINT, and replaced or removed by name, which
//     acts on a reparse point itself.

// ErrSymlink says a symbolic link stood where a change expected a
// directory or a file; nothing was followed.
var ErrSymlink = errors.New("a symbolic link stands in the way; it was not followed")

// readReal returns what the real path holds, without following a link
// anywhere: its content, or exists false.
func readReal(path string) (content []byte, exists bool, err error) {
	d, err := openDir(filepath.Dir(path))
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	defer d.close()
	f, err := d.openRead(filepath.Base(path))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	} else if !fi.Mode().IsRegular() {
		return nil, false, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	b, err := io.ReadAll(f)
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	return b, true, nil
}

// modeOf returns the permission bits of the real path, not following a
// final link.
func modeOf(path string) (fs.FileMode, error) {
	d, err := openDir(filepath.Dir(path))
	if err != nil {
		return 0, err
	}
	defer d.close()
	mode, err := d.lstat(filepath.Base(path))
	if err != nil {
		return 0, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return mode.Perm(), nil
}

var tmpCounter atomic.Uint64

// renameAt renames from over to inside d; tests replace it to make a
// write fail part-way.
var renameAt = func(d dirHandle, from, to string) error {
	return d.rename(from, to)
}

// removeReal deletes the file at the real path (a link there is removed,
// not followed).
func removeReal(path string) error {
	d, err := openDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("delete %s: %w", path, unwrapPath(err))
	}
	defer d.close()
	if err := d.unlink(filepath.Base(path)); err != nil {
		return &fs.PathError{Op: "delete", Path: path, Err: err}
	}
	return nil
}

// removeDirReal deletes the empty directory at the real path.
func removeDirReal(path string) error {
	d, err := openDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.close()
	if err := d.rmdir(filepath.Base(path)); err != nil {
		return &fs.PathError{Op: "remove", Path: path, Err: err}
	}
	return nil
}

// mkdirReal creates the directory at the real path; its parent must
// exist.
func mkdirReal(path string) error {
	d, err := openDir(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.close()
	if err := d.mkdir(filepath.Base(path)); err != nil {
		return &fs.PathError{Op: "mkdir", Path: path, Err: err}
	}
	return nil
}

// dirState tells whether the real path is a directory (a link is not),
// is missing, or is something else.
func dirState(path string) (isDir, exists bool, err error) {
	if filepath.Dir(path) == path {
		return true, true, nil // a root
	}
	d, err := openDir(filepath.Dir(path))
	if errors.Is(err, fs.ErrNotExist) || (errors.Is(err, syscall.ENOTDIR) && !errors.Is(err, ErrSymlink)) {
		return false, false, nil
	}
	if err != nil {
		return false, false, err
	}
	defer d.close()
	mode, err := d.lstat(filepath.Base(path))
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	return mode.IsDir(), true, nil
}
