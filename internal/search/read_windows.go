package search

import (
	"fmt"
	"io"
	"os"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// readDisk reads the regular file at path into buf (grown when too
// small), refusing one over limit bytes. No file system entry makes an open
// wait on Windows (its named pipes live apart, under \\.\pipe\), so the
// type is checked after the open.
func readDisk(path string, buf []byte, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &os.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%w (%s, over %s)", errTooLarge, textcut.Size(fi.Size()), textcut.Size(limit))
	}
	if cap(buf) < int(fi.Size())+1 {
		buf = make([]byte, 0, int(fi.Size())+512)
	}
	buf = buf[:cap(buf)]
	got := 0
	for {
		k, err := f.Read(buf[got:])
		got += k
		if err == io.EOF {
			return buf[:got], nil
		}
		if err != nil {
			return nil, err
		}
		if got == len(buf) {
			if int64(got) > limit {
				return nil, fmt.Errorf("%w (over %s)", errTooLarge, textcut.Size(limit))
			}
			buf = append(buf, 0)[:cap(buf)]
		}
	}
}
