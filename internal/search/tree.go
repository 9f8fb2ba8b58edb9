package search

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// Tree searches every file below the directory root that the ignore
// rules let through, in parallel, then the open documents there that are
// not on disk. Ignore files apply from the enclosing git repository's
// root, else from cwd (the workspace) when root is in it, else from root.
func (g *Grep) Tree(ctx context.Context, root, cwd string) error {
	opts := walkOptions{Root: root, Base: ignoreBase(cwd, root), Skip: g.skipDir}
	open := openUnder(g.docs, root)
	var seen sync.Map // open documents the walk reached
	// The workers' read buffers, kept across garbage collections (a
	// sync.Pool drops them at each one): a fresh buffer costs the
	// kernel a page fault per page on the next read into it.
	bufs := make(chan *[]byte, runtime.GOMAXPROCS(0)+2)
	getBuf := func() *[]byte {
		select {
		case bp := <-bufs:
			return bp
		default:
			b := make([]byte, 0, 256<<10)
			return &b
		}
	}
	putBuf := func(bp *[]byte) {
		select {
		case bufs <- bp:
		default:
		}
	}
	var notes []Note
	if g.q.StopAtLimit {
		notes = g.treeOrdered(ctx, opts, open, &seen)
	} else {
		notes = walk(ctx, opts, func(f walkFile) {
			if !g.wanted(f.Rel) {
				return
			}
			if open[f.Abs] {
				seen.Store(f.Abs, true)
			}
			bp := getBuf()
			defer putBuf(bp)
			fh, note := g.searchFile(f, open[f.Abs], bp)
			g.keep(fh, note)
		})
	}
	g.mu.Lock()
	g.res.Skipped = append(g.res.Skipped, notes...)
	g.mu.Unlock()
	if err := ctx.Err(); err != nil {
		return err
	}
	// Files open in the editor but not on disk (new, unsaved buffers).
	for abs := range open {
		if _, ok := seen.Load(abs); ok {
			continue
		}
		if _, err := os.Lstat(abs); err == nil || pathIgnored(opts, abs, false) {
			continue
		}
		rel, _ := filepath.Rel(root, abs)
		rel = filepath.ToSlash(rel)
		if !g.wanted(rel) || (g.res.Stopped && rel > g.stopRel) {
			// Past where a search that stopped at its limit got to.
			continue
		}
		if text, ok := g.docs.Document(abs); ok && !isBinary([]byte(text)) {
			g.search(rel, []byte(text))
		}
	}
	return nil
}

// keep adds one file's hits and the note of a file not searched.
func (g *Grep) keep(fh FileHits, note *Note) {
	if note != nil {
		g.skip(note.Rel, note.Err)
	}
	if fh.count > 0 {
		g.add(fh)
	}
}

// searchFile reads and searches one file the walk found, into the
// worker's buffer *bp unless the file is open in the editor, and returns
// its hits, or why it was not searched. Binary files are passed over in
// silence.
func (g *Grep) searchFile(f walkFile, open bool, bp *[]byte) (FileHits, *Note) {
	var data []byte
	var err error
	if open {
		data, err = g.read(f.Abs, true, nil)
	} else {
		var fh FileHits
		fh, data, err = g.searchDisk(f, *bp)
		if err == nil && data == nil {
			return fh, nil
		}
	}
	switch {
	case errors.Is(err, errTooLarge):
		return FileHits{}, &Note{Rel: f.Rel, Err: err}
	case errors.Is(err, errBinary):
		return FileHits{}, nil
	case err != nil:
		return FileHits{}, &Note{Rel: f.Rel, Err: plainErr(err)}
	}
	return g.hits(f.Rel, data), nil
}

// searchDisk searches the file f on disk through buf. A file that fits
// in buf is read whole and returned, to be searched by the caller; a
// larger one is read and searched a buffer at a time (whole lines each)
// and its hits returned: a large file never costs a large buffer, whose
// pages the kernel would have to fault in and the runtime to clear.
func (g *Grep) searchDisk(f walkFile, buf []byte) (FileHits, []byte, error) {
	file, size, err := f.open(g.q.MaxFileSize)
	if err != nil {
		return FileHits{}, nil, err
	}
	defer file.close()
	pre := 0
	if size < 0 {
		// Not checked yet: a first read that does not fill buf took the
		// whole file (a regular file's read stops short only at its end).
		if pre, err = file.read(buf[:cap(buf)]); err != nil {
			return FileHits{}, nil, err
		}
		if pre < cap(buf) && int64(pre) <= g.q.MaxFileSize {
			return FileHits{}, buf[:pre], binaryErr(buf[:pre])
		}
		if size, err = file.stat(g.q.MaxFileSize); err != nil {
			return FileHits{}, nil, err
		}
	}
	if size < int64(cap(buf)) {
		data, err := readAll(file, size, buf[:pre], g.q.MaxFileSize)
		if err == nil {
			err = binaryErr(data)
		}
		return FileHits{}, data, err
	}
	return g.searchChunks(f, file, buf, pre)
}

// binaryErr is errBinary when data, a file's start, is binary.
func binaryErr(data []byte) error {
	if isBinary(data[:min(len(data), sniffLen)]) {
		return errBinary
	}
	return nil
}

// searchChunks searches file, larger than buf, a buffer at a time (whole
// lines each); its first pre bytes are in buf already.
func (g *Grep) searchChunks(f walkFile, file diskFile, buf []byte, pre int) (FileHits, []byte, error) {
	fh := FileHits{Rel: f.Rel}
	buf = buf[:cap(buf)]
	base, carry, total := 0, 0, 0
	for {
		k := pre
		if pre > 0 {
			pre = 0
		} else {
			var err error
			if k, err = fill(file, buf[carry:]); err != nil {
				return FileHits{}, nil, err
			}
		}
		if total == 0 && binaryErr(buf[:k]) != nil {
			return FileHits{}, nil, errBinary
		}
		if total += k; int64(total) > g.q.MaxFileSize {
			return FileHits{}, nil, fmt.Errorf("%w (over %s)", errTooLarge, textcut.Size(g.q.MaxFileSize))
		}
		n := carry + k
		end := n
		if n == len(buf) {
			// Not the end: search the whole lines, keep the rest.
			if end = bytes.LastIndexByte(buf[:n], '\n') + 1; end == 0 {
				buf = append(buf, make([]byte, len(buf))...) // one line longer than buf
				carry = n
				continue
			}
		}
		if !g.hitsAt(&fh, buf[:end], base) || n < len(buf) {
			return fh, nil, nil
		}
		base += bytes.Count(buf[:end], []byte{'\n'})
		carry = copy(buf, buf[end:n])
	}
}

// openUnder returns the open documents at or below dir.
func openUnder(docs Docs, dir string) map[string]bool {
	open := map[string]bool{}
	for _, p := range docs.OpenPaths() {
		if filepath.IsAbs(p) && lexicallyWithin(dir, p) {
			open[p] = true
		}
	}
	return open
}
