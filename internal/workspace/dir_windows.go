package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"golang.org/x/sys/windows"
)

// dirHandle is a directory whose every component, from the volume root
// down, is held open and was checked to be a directory and no reparse
// point (see nofollow.go). The handles do not share delete access, so no
// component can be renamed, removed or replaced while they are held: the
// full path of a name in the directory resolves through exactly the
// components checked.
type dirHandle struct {
	path    string
	handles []windows.Handle
}

// openDir pins the directory at the real path dir, refusing a reparse
// point (symbolic link, junction, mount point) at any component.
func openDir(dir string) (dirHandle, error) {
	if !filepath.IsAbs(dir) {
		return dirHandle{}, fmt.Errorf("open directory %s: not an absolute path", dir)
	}
	clean := filepath.Clean(dir)
	if clean != dir && clean+`\` != dir {
		return dirHandle{}, &fs.PathError{Op: "open", Path: dir, Err: errors.New("path is not clean")}
	}
	vol := filepath.VolumeName(clean)
	d := dirHandle{path: clean}
	cur := vol + `\`
	names := strings.Split(strings.Trim(clean[len(vol):], `\`), `\`)
	for i := -1; i < len(names); i++ {
		if i >= 0 {
			if names[i] == "" {
				continue
			}
			cur = filepath.Join(cur, names[i])
		}
		h, err := openPinned(cur)
		if err != nil {
			d.close()
			return dirHandle{}, &fs.PathError{Op: "open", Path: dir, Err: err}
		}
		d.handles = append(d.handles, h)
	}
	return d, nil
}

// openPinned opens the directory at path itself, not what a reparse point
// there leads to, sharing neither delete nor rename; a reparse point is
// ErrSymlink, anything else but a directory ENOTDIR.
func openPinned(path string) (windows.Handle, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return 0, err
	}
	h, err := windows.CreateFile(p, windows.FILE_READ_ATTRIBUTES, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE, nil,
		windows.OPEN_EXISTING, windows.FILE_FLAG_BACKUP_SEMANTICS|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return 0, err
	}
	var info windows.ByHandleFileInformation
	err = windows.GetFileInformationByHandle(h, &info)
	switch {
	case err != nil:
	case info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0:
		err = ErrSymlink
	case info.FileAttributes&windows.FILE_ATTRIBUTE_DIRECTORY == 0:
		err = syscall.ENOTDIR
	}
	if err != nil {
		windows.CloseHandle(h)
		return 0, err
	}
	return h, nil
}

func (d dirHandle) close() {
	for _, h := range d.handles {
		windows.CloseHandle(h)
	}
}

func (d dirHandle) join(name string) string { return filepath.Join(d.path, name) }

// openFile opens name in d itself, a reparse point there not followed but
// refused (ErrSymlink).
func (d dirHandle) openFile(name string, access, mode uint32) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(d.join(name))
	if err != nil {
		return nil, err
	}
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ, nil, mode,
		windows.FILE_ATTRIBUTE_NORMAL|windows.FILE_FLAG_OPEN_REPARSE_POINT, 0)
	if err != nil {
		return nil, err
	}
	var info windows.ByHandleFileInformation
	err = windows.GetFileInformationByHandle(h, &info)
	if err == nil && info.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		err = ErrSymlink
	}
	if err != nil {
		windows.CloseHandle(h)
		return nil, err
	}
	return os.NewFile(uintptr(h), d.join(name)), nil
}

// openRead opens the file name for reading; a reparse point there is
// ErrSymlink.
func (d dirHandle) openRead(name string) (*os.File, error) {
	return d.openFile(name, windows.GENERIC_READ, windows.OPEN_EXISTING)
}

// createExcl creates the file name, which must not exist (CREATE_NEW
// with FILE_FLAG_OPEN_REPARSE_POINT fails on a link too, dangling or not).
func (d dirHandle) createExcl(name string) (*os.File, error) {
	return d.openFile(name, windows.GENERIC_WRITE, windows.CREATE_NEW)
}

// lstat returns the type and permission bits of name; any reparse point
// counts as a link.
func (d dirHandle) lstat(name string) (fs.FileMode, error) {
	fi, err := os.Lstat(d.join(name))
	if err != nil {
		return 0, err
	}
	mode := fi.Mode()
	if a, ok := fi.Sys().(*syscall.Win32FileAttributeData); ok && a.FileAttributes&windows.FILE_ATTRIBUTE_REPARSE_POINT != 0 {
		mode = mode&^(fs.ModeDir|fs.ModeIrregular) | fs.ModeSymlink
	}
	return mode, nil
}

// rename renames from over to, both in d; MoveFileEx replaces a link at
// to itself, not its target.
func (d dirHandle) rename(from, to string) error {
	return os.Rename(d.join(from), d.join(to))
}

// unlink removes the file (or file link) name.
func (d dirHandle) unlink(name string) error {
	p, err := windows.UTF16PtrFromString(d.join(name))
	if err != nil {
		return err
	}
	return windows.DeleteFile(p)
}

// rmdir removes the empty directory name (a directory link is removed,
// not followed).
func (d dirHandle) rmdir(name string) error {
	p, err := windows.UTF16PtrFromString(d.join(name))
	if err != nil {
		return err
	}
	return windows.RemoveDirectory(p)
}

// mkdir creates the directory name.
func (d dirHandle) mkdir(name string) error { return os.Mkdir(d.join(name), 0o755) }

// readDirNames lists a directory without following a link to it.
func readDirNames(dir string) ([]string, error) {
	d, err := openDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.close()
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}

// lockFile takes an exclusive lock on f's first byte; without wait it
// fails at once when another holds it. The lock ends with the handle, so
// with the process.
func lockFile(f *os.File, wait bool) error {
	flags := uint32(windows.LOCKFILE_EXCLUSIVE_LOCK)
	if !wait {
		flags |= windows.LOCKFILE_FAIL_IMMEDIATELY
	}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, new(windows.Overlapped))
}

// openJournalFile opens a journal file as os.OpenFile does, but sharing
// delete access: a journal is renamed and removed while it is open and
// locked (see journal.go).
func openJournalFile(path string, flag int, perm fs.FileMode) (*os.File, error) {
	p, err := windows.UTF16PtrFromString(path)
	if err != nil {
		return nil, err
	}
	access, mode := uint32(windows.GENERIC_READ|windows.GENERIC_WRITE), uint32(windows.OPEN_EXISTING)
	if flag&os.O_CREATE != 0 {
		mode = windows.CREATE_NEW
	}
	h, err := windows.CreateFile(p, access, windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil,
		mode, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: path, Err: err}
	}
	return os.NewFile(uintptr(h), path), nil
}
