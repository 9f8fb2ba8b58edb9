package search

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

var (
	errTooLarge   = errors.New("file too large")
	errBinary     = errors.New("binary file")
	errNotRegular = errors.New("not a regular file; it was not read")
)

// sniffLen is how much of a file decides whether it is binary.
const sniffLen = 8 << 10

// read returns the text of path: the editor's text when the file is open
// there (open), else the disk's, read into buf. Files that are not open
// are never read through the editor: it may be reached over the wire
// (ACP's fs/read_text_file), too slow for every file of a walk. It
// refuses files over the query's MaxFileSize and binary files.
func (g *Grep) read(path string, open bool, buf []byte) ([]byte, error) {
	var data []byte
	if text, ok := g.document(path, open); ok {
		data = []byte(text)
	} else {
		var err error
		if data, err = readDisk(path, buf, g.q.MaxFileSize); err != nil {
			return nil, err
		}
	}
	if isBinary(data[:min(len(data), sniffLen)]) {
		return nil, errBinary
	}
	return data, nil
}

// readDisk reads the regular file at path into buf (grown when too
// small), refusing anything else without blocking on it, and a file over
// limit bytes.
func readDisk(path string, buf []byte, limit int64) ([]byte, error) {
	f, size, err := openDisk(path, limit)
	if err != nil {
		return nil, err
	}
	defer f.close()
	if int64(cap(buf)) < size+1 {
		buf = make([]byte, 0, size+512)
	}
	return readAll(f, size, buf[:0], limit)
}

// readAll appends the rest of f to buf, which has room for its size:
// it stops at that size (no read that returns 0 needed), or at the end
// when the file shrank, and grows buf when the file grew.
func readAll(f diskFile, size int64, buf []byte, limit int64) ([]byte, error) {
	got := len(buf)
	buf = buf[:cap(buf)]
	for {
		k, err := f.read(buf[got:])
		if err != nil {
			return nil, err
		}
		got += k
		if k == 0 || int64(got) == size {
			return buf[:got], nil
		}
		if got == len(buf) {
			if int64(got) > limit {
				return nil, fmt.Errorf("%w (over %s)", errTooLarge, textcut.Size(limit))
			}
			buf = append(buf, 0)[:cap(buf)]
		}
	}
}

// fill reads from f into buf until it is full or the file ends, and
// returns how many bytes it read.
func fill(f diskFile, buf []byte) (int, error) {
	got := 0
	for got < len(buf) {
		k, err := f.read(buf[got:])
		if err != nil {
			return got, err
		}
		if k == 0 {
			break
		}
		got += k
	}
	return got, nil
}

// document is the text of the open document at path when it is open.
func (g *Grep) document(path string, open bool) (string, bool) {
	if !open {
		return "", false
	}
	return g.docs.Document(path)
}

// readRegular returns the content of the regular file at path (an ignore
// file, git's config), refusing anything else without blocking on it.
func readRegular(path string) ([]byte, error) {
	return readDisk(path, nil, 1<<62)
}

// isBinary reports whether the start of a file looks like binary data: a
// NUL byte, as git and ripgrep decide.
func isBinary(head []byte) bool { return bytes.IndexByte(head, 0) >= 0 }

// plainErr drops the *PathError wrapping (the path is already named).
func plainErr(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// lexicallyWithin reports whether p is dir or below it.
func lexicallyWithin(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}
