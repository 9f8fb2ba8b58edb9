//go:build linux

package search

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"unsafe"
)

// dirHandle is a directory the walk has open: its entries are listed,
// and its files and subdirectories opened, relative to its descriptor.
// That costs the kernel one name's lookup instead of a whole path's, and
// a subdirectory swapped for a symbolic link between its listing and its
// opening is refused (O_NOFOLLOW), whatever happens above it. The
// descriptor is closed when the last reference is released: the lister's,
// each subdirectory's not yet opened, each file handed on unopened.
type dirHandle struct {
	fd   int
	abs  string
	refs atomic.Int32
}

const dirFlags = syscall.O_RDONLY | syscall.O_DIRECTORY | syscall.O_CLOEXEC | syscall.O_NONBLOCK | syscall.O_NOCTTY

// openDirJob opens the directory of job: by its path for the walk's root
// (a link there is followed, as the caller named it), else by its name
// in its parent, never through a link.
func openDirJob(job dirJob) (*dirHandle, error) {
	var fd int
	var err error
	if job.parent == nil {
		fd, err = retryEINTR(func() (int, error) { return syscall.Open(job.abs, dirFlags, 0) })
	} else {
		fd, err = retryEINTR(func() (int, error) {
			return syscall.Openat(job.parent.fd, job.name, dirFlags|syscall.O_NOFOLLOW, 0)
		})
		job.parent.release()
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: job.abs, Err: err}
	}
	d := &dirHandle{fd: fd, abs: job.abs}
	d.refs.Store(1)
	return d, nil
}

func retryEINTR(f func() (int, error)) (int, error) {
	for {
		fd, err := f()
		if err != syscall.EINTR {
			return fd, err
		}
	}
}

// retain adds a reference to d.
func (d *dirHandle) retain() { d.refs.Add(1) }

// release drops a reference to d, closing it with the last one.
func (d *dirHandle) release() {
	if d != nil && d.refs.Add(-1) == 0 {
		syscall.Close(d.fd)
	}
}

// direntBufs are the buffers the directories are listed into.
var direntBufs = sync.Pool{New: func() any { b := make([]byte, 32<<10); return &b }}

// entries lists d with getdents64, giving each entry's name and type as
// the directory holds them (a type it does not hold is asked of the
// entry itself, without following a link). The order is the system's.
func (d *dirHandle) entries(each func(name string, typ fs.FileMode)) error {
	bp := direntBufs.Get().(*[]byte)
	defer direntBufs.Put(bp)
	buf := *bp
	for {
		n, err := syscall.Getdents(d.fd, buf)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		for off := 0; off < n; {
			// struct linux_dirent64: ino u64, off s64, reclen u16, type u8, name.
			reclen := int(*(*uint16)(unsafe.Pointer(&buf[off+16])))
			typ := buf[off+18]
			nameBytes := buf[off+19 : off+reclen]
			if i := indexNUL(nameBytes); i >= 0 {
				nameBytes = nameBytes[:i]
			}
			off += reclen
			if len(nameBytes) == 0 || (nameBytes[0] == '.' && (len(nameBytes) == 1 || (len(nameBytes) == 2 && nameBytes[1] == '.'))) {
				continue
			}
			name := string(nameBytes)
			each(name, d.direntType(name, typ))
		}
	}
}

func indexNUL(b []byte) int {
	for i, c := range b {
		if c == 0 {
			return i
		}
	}
	return -1
}

// direntType is the type of the entry name of d from its d_type, asking
// the entry itself when the file system did not say.
func (d *dirHandle) direntType(name string, typ byte) fs.FileMode {
	switch typ {
	case syscall.DT_REG:
		return 0
	case syscall.DT_DIR:
		return fs.ModeDir
	case syscall.DT_LNK:
		return fs.ModeSymlink
	case syscall.DT_UNKNOWN:
		// Rare (some file systems): asked by path, without following
		// a link; the entry is opened by name anyway.
		fi, err := os.Lstat(filepath.Join(d.abs, name))
		if err != nil {
			return fs.ModeIrregular
		}
		switch typ := fi.Mode().Type(); typ {
		case 0, fs.ModeDir, fs.ModeSymlink:
			return typ
		}
	}
	return fs.ModeIrregular
}

// openFile opens the file f the walk found and returns its size, as
// openDisk does: by its name in its directory when the walk has that
// open and f is not reached through a link, never following one then.
// The size is then -1, unknown: the directory said the file is regular,
// and the name cannot be a link, so its type and size are checked (see
// diskFile.stat) only when a first read does not take the whole of it;
// the open cannot block (O_NONBLOCK), nor can a read of anything else
// put in its place since the listing (a named pipe's fails, EAGAIN, or
// finds it empty).
func openFile(f walkFile, limit int64) (diskFile, int64, error) {
	if f.dir == nil || f.link {
		return openDisk(f.Abs, limit)
	}
	fd, err := retryEINTR(func() (int, error) {
		return syscall.Openat(f.dir.fd, f.name, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY|syscall.O_NOFOLLOW, 0)
	})
	if err != nil {
		return diskFile{}, 0, &os.PathError{Op: "open", Path: f.Abs, Err: err}
	}
	return diskFile{fd, f.Abs}, -1, nil
}
