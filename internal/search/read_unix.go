//go:build unix

package search

import (
	"fmt"
	"os"
	"syscall"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// readDisk reads the regular file at path into buf (grown when too
// small), refusing one over limit bytes, with plain system calls: open,
// fstat, read until the size is reached, close. Going around os.File
// saves the runtime poller's registration of every file, which costs as
// much as the read itself for small files.
func readDisk(path string, buf []byte, limit int64) ([]byte, error) {
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
		return nil, &os.PathError{Op: "open", Path: path, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil, &os.PathError{Op: "stat", Path: path, Err: err}
	}
	if st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	if st.Size > limit {
		return nil, fmt.Errorf("%w (%s, over %s)", errTooLarge, textcut.Size(st.Size), textcut.Size(limit))
	}
	size := int(st.Size)
	if cap(buf) < size+1 {
		buf = make([]byte, 0, size+512)
	}
	buf = buf[:cap(buf)]
	got := 0
	for {
		k, err := syscall.Read(fd, buf[got:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: path, Err: err}
		}
		got += k
		if k == 0 || got == size {
			// The end, or the size fstat reported: no need for the
			// read that would return 0.
			break
		}
		if got == len(buf) {
			if int64(got) > limit {
				return nil, fmt.Errorf("%w (over %s)", errTooLarge, textcut.Size(limit))
			}
			buf = append(buf, 0)[:cap(buf)]
		}
	}
	return buf[:got], nil
}
