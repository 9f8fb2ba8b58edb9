package checkpoint

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// A tracker's latest snapshot is kept beside its store (indexFile), and
// a small file under the state directory (rootsDir) names the store of
// the latest session whose snapshot covers the same real folders. A new
// session of those folders hard-links that store's objects for every
// file whose metadata still matches, instead of reading and copying
// the whole workspace again.
const (
	indexFile    = "snapshot.json"
	indexVersion = 1
	rootsDir     = "checkpoint-roots"
	// maxIndexEntries bounds what an index holds and what is read of one.
	maxIndexEntries = 2_000_000
	// maxPointerBytes bounds a pointer file (a store's path).
	maxPointerBytes = 4096
)

// indexEntry is one file of a kept snapshot.
type indexEntry struct {
	Path  string      `json:"p"`
	Size  int64       `json:"s"`
	MTime int64       `json:"t"` // Unix nanoseconds
	Mode  fs.FileMode `json:"m"`
	Ino   uint64      `json:"i,omitempty"`
	Sum   Sum         `json:"sum,omitempty"`
	Git   string      `json:"git,omitempty"`
	Lost  string      `json:"lost,omitempty"`
}

// indexHead is an index's first line: the format and the real roots.
type indexHead struct {
	Version int      `json:"version"`
	Roots   []string `json:"roots"`
	Files   int      `json:"files"`
}

// realRoots returns roots with links resolved, sorted.
func realRoots(roots []string) []string {
	out := make([]string, len(roots))
	for i, r := range roots {
		out[i] = filepath.Clean(r)
		if p, err := filepath.EvalSymlinks(r); err == nil {
			out[i] = p
		}
	}
	slices.Sort(out)
	return out
}

// pointerPath is the file under state that names the latest store of
// the snapshots of roots (real, sorted).
func pointerPath(state string, roots []string) string {
	h := sha256.Sum256([]byte(strings.Join(roots, "\x00")))
	return filepath.Join(state, rootsDir, hex.EncodeToString(h[:16]))
}

// writeAtomic writes data to p through a temporary file renamed into
// place, so a reader finds the former file or the new one, whole.
func writeAtomic(p string, write func(w io.Writer) error) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(tmp)
	werr := write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if err := errors.Join(werr, tmp.Close()); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return nil
}

// saveIndex keeps files, the snapshot of roots (real, sorted), beside
// the store, and names the store as the latest of roots under state.
func saveIndex(store *Store, state string, roots []string, files map[string]Entry) error {
	if len(files) > maxIndexEntries {
		return fmt.Errorf("checkpoint index: %d files, more than %d", len(files), maxIndexEntries)
	}
	if err := store.create(); err != nil {
		return err
	}
	err := writeAtomic(filepath.Join(store.Dir(), indexFile), func(w io.Writer) error {
		enc := json.NewEncoder(w)
		if err := enc.Encode(indexHead{Version: indexVersion, Roots: roots, Files: len(files)}); err != nil {
			return err
		}
		for p, e := range files {
			ie := indexEntry{Path: p, Size: e.Size, MTime: e.MTime.UnixNano(), Mode: e.Mode, Ino: e.Ino, Sum: e.Sum, Git: e.Git, Lost: e.Lost}
			if err := enc.Encode(ie); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("checkpoint index: %w", err)
	}
	abs, err := filepath.Abs(store.Dir())
	if err != nil {
		return fmt.Errorf("checkpoint index: %w", err)
	}
	err = writeAtomic(pointerPath(state, roots), func(w io.Writer) error {
		_, err := io.WriteString(w, abs+"\n")
		return err
	})
	if err != nil {
		return fmt.Errorf("checkpoint index: %w", err)
	}
	return nil
}

// loadPrior reads the latest snapshot an earlier store kept of roots
// (real, sorted): its store and its files. Nothing comes back when there
// is none, or when the pointer or the index is not one this version
// wrote for these roots (foreign, corrupt, truncated): a new snapshot
// then reads every file, as it would without one. The store may be the
// tracker's own (a resumed session): its contents are then kept already.
func loadPrior(state string, roots []string) (*Store, map[string]Entry) {
	data, err := readBounded(pointerPath(state, roots), maxPointerBytes)
	if err != nil {
		return nil, nil
	}
	dir := strings.TrimSpace(string(data))
	if dir == "" || !filepath.IsAbs(dir) || !isStore(dir) {
		return nil, nil
	}
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil, nil
	}
	files, err := readIndex(filepath.Join(dir, indexFile), roots)
	if err != nil {
		return nil, nil
	}
	return Open(dir), files
}

// readBounded reads at most limit bytes of the regular file p.
func readBounded(p string, limit int64) ([]byte, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > limit {
		return nil, errNotRegular
	}
	return os.ReadFile(p)
}

var errBadIndex = errors.New("not a checkpoint index of these folders")

// readIndex reads the index at p, refusing one of another version or
// other roots, one with an entry that is not well formed, and one cut
// short.
func readIndex(p string, roots []string) (map[string]Entry, error) {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, errBadIndex
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec := json.NewDecoder(bufio.NewReader(f))
	var head indexHead
	if err := dec.Decode(&head); err != nil || head.Version != indexVersion || !slices.Equal(head.Roots, roots) ||
		head.Files < 0 || head.Files > maxIndexEntries {
		return nil, errBadIndex
	}
	files := make(map[string]Entry, head.Files)
	for range head.Files {
		var ie indexEntry
		if err := dec.Decode(&ie); err != nil || !ie.valid() {
			return nil, errBadIndex
		}
		files[ie.Path] = Entry{Size: ie.Size, MTime: time.Unix(0, ie.MTime), Mode: ie.Mode, Ino: ie.Ino, Sum: ie.Sum, Git: ie.Git, Lost: ie.Lost}
	}
	if dec.More() {
		return nil, errBadIndex
	}
	return files, nil
}

// valid reports whether e is well formed: an absolute path, a size, and
// a content named by a hex digest of the right length.
func (e indexEntry) valid() bool {
	return filepath.IsAbs(e.Path) && e.Size >= 0 && e.Mode.IsRegular() &&
		(e.Sum == "" || isHex(string(e.Sum), 64)) &&
		(e.Git == "" || isHex(e.Git, 40) || isHex(e.Git, 64))
}

func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil && strings.ToLower(s) == s
}
