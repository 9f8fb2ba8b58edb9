package workspace

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Files are read by paths that come from the model or from the
// repository (AGENTS.md, ignore files). A named pipe there would block the
// open until some writer appears, a device (a link to /dev/zero, a
// terminal) would be read forever or taken over: both hang the turn. So
// every such read opens without blocking (O_NONBLOCK, and O_NOCTTY so no
// terminal becomes ours), checks on the open descriptor that it holds a
// regular file, and refuses anything else at once. Checking after the
// open, not before, leaves no window for a swap.

// NotRegularError says a path names something other than a regular file
// (a directory, a named pipe, a device, a socket); it was not read.
type NotRegularError struct {
	Path string
	Mode fs.FileMode
}

// ErrNotRegular matches every *NotRegularError.
var ErrNotRegular = errors.New("not a regular file")

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a regular file; it was not read", e.Path, KindOf(e.Mode))
}

func (e *NotRegularError) Is(target error) bool { return target == ErrNotRegular }

// KindOf names the kind of file mode describes, with its article.
func KindOf(mode fs.FileMode) string {
	switch {
	case mode.IsRegular():
		return "a regular file"
	case mode.IsDir():
		return "a directory"
	case mode&fs.ModeSymlink != 0:
		return "a symbolic link"
	case mode&fs.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case mode&fs.ModeSocket != 0:
		return "a socket"
	case mode&fs.ModeCharDevice != 0:
		return "a character device"
	case mode&fs.ModeDevice != 0:
		return "a block device"
	}
	return "a special file"
}

// OpenRegular opens path for reading when it is a regular file (links
// followed), without ever blocking on what the path names; anything else
// is a *NotRegularError and nothing is returned open.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := openNonblock(path)
	if err != nil {
		// Opening a socket fails (ENXIO, EOPNOTSUPP); say what it is.
		if fi, serr := os.Stat(path); serr == nil && fi.Mode()&fs.ModeSocket != 0 {
			return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode()}
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, &NotRegularError{Path: path, Mode: fi.Mode()}
	}
	return f, fi, nil
}

// ReadRegular returns the content of the regular file at path, as
// os.ReadFile does, refusing anything else (see OpenRegular).
func ReadRegular(path string) ([]byte, error) {
	f, fi, err := OpenRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 0, fi.Size()+512)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if errors.Is(err, io.EOF) {
			return buf, nil
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: path, Err: err}
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}
