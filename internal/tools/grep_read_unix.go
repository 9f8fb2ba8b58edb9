//go:build unix

package tools

import (
	"fmt"
	"os"
	"syscall"
)

// readDisk reads the file at path into buf (grown when too small) with
// plain system calls: open, fstat, read until the size is reached, close.
// Going around os.File saves the runtime poller's registration of every
// file, which costs as much as the read itself for small files.
func readDisk(path string, buf []byte) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
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
	if st.Size > MaxGrepFileSize {
		return nil, fmt.Errorf("%w (%s, over %s)", errTooLarge, byteSize(st.Size), byteSize(MaxGrepFileSize))
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
			if int64(got) > MaxGrepFileSize {
				return nil, fmt.Errorf("%w (over %s)", errTooLarge, byteSize(MaxGrepFileSize))
			}
			buf = append(buf, 0)[:cap(buf)]
		}
	}
	return buf[:got], nil
}
