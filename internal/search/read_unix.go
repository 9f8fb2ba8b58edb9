//go:build unix

package search

import (
	"fmt"
	"os"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// diskFile is a file open for reading, with plain system calls: going
// around os.File saves the runtime poller's registration of every file,
// which costs as much as the read itself for small files.
type diskFile struct {
	fd   int
	path string
}

// openDisk opens the regular file at path for reading and returns its
// size, refusing anything else without blocking on it, and a file over
// limit bytes.
func openDisk(path string, limit int64) (diskFile, int64, error) {
	var fd int
	var err error
	for {
		// Never wait on a named pipe nor take a terminal: the type is
		// checked on the descriptor below, leaving no window for a swap.
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		return diskFile{}, 0, &os.PathError{Op: "open", Path: path, Err: err}
	}
	return checkOpen(fd, path, limit)
}

// checkOpen returns the file open at fd, named path, and its size when it
// is a regular file of at most limit bytes; else it closes it.
func checkOpen(fd int, path string, limit int64) (diskFile, int64, error) {
	f := diskFile{fd, path}
	size, err := f.stat(limit)
	if err != nil {
		f.close()
		return diskFile{}, 0, err
	}
	return f, size, nil
}

// stat returns the size of f when it is a regular file of at most limit
// bytes.
func (f diskFile) stat(limit int64) (int64, error) {
	var st syscall.Stat_t
	if err := syscall.Fstat(f.fd, &st); err != nil {
		return 0, &os.PathError{Op: "stat", Path: f.path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return 0, &os.PathError{Op: "open", Path: f.path, Err: errNotRegular}
	}
	if st.Size > limit {
		return 0, fmt.Errorf("%w (%s, over %s)", errTooLarge, textcut.Size(st.Size), textcut.Size(limit))
	}
	return st.Size, nil
}

// read reads into p; 0 bytes and no error at the end.
func (f diskFile) read(p []byte) (int, error) {
	for {
		k, err := syscall.Read(f.fd, p)
		if err == syscall.EINTR {
			continue
		}
		if err == syscall.EAGAIN {
			// Only a named pipe or a device, opened without blocking.
			return 0, &os.PathError{Op: "read", Path: f.path, Err: errNotRegular}
		}
		if err != nil {
			return 0, &os.PathError{Op: "read", Path: f.path, Err: err}
		}
		return k, nil
	}
}

func (f diskFile) close() { syscall.Close(f.fd) }
