package search

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
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
