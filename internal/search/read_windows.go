package search

import (
	"fmt"
	"io"
	"os"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// diskFile is a file open for reading.
type diskFile struct{ f *os.File }

// openDisk opens the regular file at path for reading and returns its
// size, refusing anything else, and a file over limit bytes. No file
// system entry makes an open wait on Windows (its named pipes live
// apart, under \\.\pipe\), so the type is checked after the open.
func openDisk(path string, limit int64) (diskFile, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return diskFile{}, 0, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return diskFile{}, 0, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return diskFile{}, 0, &os.PathError{Op: "open", Path: path, Err: errNotRegular}
	}
	if fi.Size() > limit {
		f.Close()
		return diskFile{}, 0, fmt.Errorf("%w (%s, over %s)", errTooLarge, textcut.Size(fi.Size()), textcut.Size(limit))
	}
	return diskFile{f}, fi.Size(), nil
}

// stat returns the size of f when it is a regular file of at most limit
// bytes.
func (f diskFile) stat(limit int64) (int64, error) {
	fi, err := f.f.Stat()
	if err != nil {
		return 0, err
	}
	if !fi.Mode().IsRegular() {
		return 0, &os.PathError{Op: "open", Path: f.f.Name(), Err: errNotRegular}
	}
	if fi.Size() > limit {
		return 0, fmt.Errorf("%w (%s, over %s)", errTooLarge, textcut.Size(fi.Size()), textcut.Size(limit))
	}
	return fi.Size(), nil
}

// read reads into p; 0 bytes and no error at the end.
func (f diskFile) read(p []byte) (int, error) {
	k, err := f.f.Read(p)
	if err == io.EOF {
		return k, nil
	}
	return k, err
}

func (f diskFile) close() { f.f.Close() }
