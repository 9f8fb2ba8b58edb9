// Package checkpoint keeps what a rewind needs to take the workspace's
// files back to an earlier turn: a content-addressed store of file
// contents outside the workspace, a cheap metadata snapshot of the
// workspace folders that finds what a command changed, and the three-way
// merge that takes an agent's change back without the user's own edits.
package checkpoint

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// Sum names a content in the store: the hex SHA-256 of its bytes.
type Sum string

// SumOf returns data's name in a store.
func SumOf(data []byte) Sum {
	h := sha256.Sum256(data)
	return Sum(hex.EncodeToString(h[:]))
}

// ErrMissing says a content is not (or no longer) in the store.
var ErrMissing = errors.New("the checkpoint's copy of the content is gone")

// Store holds file contents by their digest, one file per content under
// its directory, each written whole (a temporary file renamed into
// place), so a crash leaves either the whole content or none. Safe for
// concurrent use.
type Store struct {
	dir string

	mu   sync.Mutex
	size int64 // bytes of the contents held, -1 until counted
}

// Open returns the store in dir, created on the first Put.
func Open(dir string) *Store { return &Store{dir: dir, size: -1} }

// Dir is the store's directory.
func (s *Store) Dir() string { return s.dir }

func (s *Store) path(sum Sum) string {
	if len(sum) < 3 {
		return filepath.Join(s.dir, "objects", "_"+string(sum))
	}
	return filepath.Join(s.dir, "objects", string(sum[:2]), string(sum[2:]))
}

// Has reports whether the store holds sum.
func (s *Store) Has(sum Sum) bool {
	_, err := os.Stat(s.path(sum))
	return err == nil
}

// Put keeps data and returns its name; a content kept already is not
// written again.
func (s *Store) Put(data []byte) (Sum, error) {
	sum := SumOf(data)
	p := s.path(sum)
	// Only a regular file holding data counts as kept: anything else
	// put there (a link, a folder, a changed copy) is replaced.
	if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() && fi.Size() == int64(len(data)) {
		if old, err := readNoFollow(p); err == nil && bytes.Equal(old, data) {
			return sum, nil
		}
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return "", fmt.Errorf("checkpoint store: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return "", fmt.Errorf("checkpoint store: %w", err)
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("checkpoint store: %w", err)
	}
	if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
		os.RemoveAll(p)
	}
	if err := os.Rename(tmp.Name(), p); err != nil {
		os.Remove(tmp.Name())
		return "", fmt.Errorf("checkpoint store: %w", err)
	}
	s.mu.Lock()
	if s.size >= 0 {
		s.size += int64(len(data))
	}
	s.mu.Unlock()
	return sum, nil
}

// ErrCorrupt says the store's copy of a content is not that content: it
// was changed, or replaced by a link or a folder, after it was kept.
var ErrCorrupt = errors.New("the checkpoint's copy of the content was changed since it was kept")

// Get returns the content named sum. It never follows a link the store
// holds and checks the content against its name, so what a rewind
// writes back is exactly what was kept.
func (s *Store) Get(sum Sum) ([]byte, error) {
	data, err := readNoFollow(s.path(sum))
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w (%.12s)", ErrMissing, sum)
	case errors.Is(err, errNotRegular):
		return nil, fmt.Errorf("%w (%.12s: not a regular file)", ErrCorrupt, sum)
	case err != nil:
		return nil, fmt.Errorf("checkpoint store: %w", err)
	case SumOf(data) != sum:
		return nil, fmt.Errorf("%w (%.12s)", ErrCorrupt, sum)
	}
	return data, nil
}

// Size returns the bytes of the contents held.
func (s *Store) Size() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.size < 0 {
		s.size = 0
		s.each(func(_ Sum, _ string, n int64) { s.size += n })
	}
	return s.size
}

// each calls f for every content held.
func (s *Store) each(f func(sum Sum, path string, size int64)) {
	root := filepath.Join(s.dir, "objects")
	filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		dir, name := filepath.Split(rel)
		f(Sum(filepath.Clean(dir)+name), p, fi.Size())
		return nil
	})
}

// Prune removes every content keep does not report true for, and returns
// the bytes freed.
func (s *Store) Prune(keep func(Sum) bool) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	var freed, size int64
	s.each(func(sum Sum, p string, n int64) {
		if keep(sum) {
			size += n
			return
		}
		if os.Remove(p) == nil {
			freed += n
		}
	})
	s.size = size
	return freed
}

// Remove deletes the whole store.
func (s *Store) Remove() error { return os.RemoveAll(s.dir) }
