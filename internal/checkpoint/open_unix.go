//go:build unix

package checkpoint

import (
	"errors"
	"io"
	"os"
	"syscall"
)

// errNotRegular: the store holds something other than a regular file
// where a content belongs.
var errNotRegular = errors.New("not a regular file")

// readNoFollow reads the regular file at p, refusing a link (O_NOFOLLOW)
// and, without blocking on it, a FIFO or a device.
func readNoFollow(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, syscall.ELOOP) {
		return nil, errNotRegular
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errNotRegular
	}
	return io.ReadAll(f)
}
