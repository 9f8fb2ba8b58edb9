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

// storeMarker is the file that names a directory as a checkpoint store:
// a snapshot never walks into one, wherever it lies.
const storeMarker = ".agent-ls-checkpoints"

// isStore reports whether dir holds a checkpoint store's marker.
func isStore(dir string) bool {
	fi, err := os.Lstat(filepath.Join(dir, storeMarker))
	return err == nil && fi.Mode().IsRegular()
}

// objectDir creates the directory of p, an object's path, and marks the
// store as one.
func (s *Store) objectDir(p string) error {
	if err := s.create(); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	return nil
}

// create makes the store's directory, marked as a store.
func (s *Store) create() error {
	m := filepath.Join(s.dir, storeMarker)
	if _, err := os.Lstat(m); err == nil {
		return nil
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	if err := os.WriteFile(m, nil, 0o600); err != nil {
		return fmt.Errorf("checkpoint store: %w", err)
	}
	return nil
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
	if err := s.objectDir(p); err != nil {
		return "", err
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

// link makes the content sum of size bytes that src holds one of s's
// too, by a hard link to src's file: nothing is read or copied. Objects
// are never changed in place and Get checks their digest, so sharing
// an inode is safe, and removing either store's file leaves the other's.
// It fails when src's object is missing, not a regular file of that
// size, or cannot be linked (another file system); the caller then
// reads and copies the file.
func (s *Store) link(src *Store, sum Sum, size int64) error {
	from, p := src.path(sum), s.path(sum)
	fi, err := os.Lstat(from)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() || fi.Size() != size {
		return errNotRegular
	}
	if old, err := os.Lstat(p); err == nil && old.Mode().IsRegular() && old.Size() == size {
		return nil // kept already (the same content under two paths)
	}
	if err := s.objectDir(p); err != nil {
		return err
	}
	if err := os.Link(from, p); err != nil {
		return err
	}
	s.mu.Lock()
	if s.size >= 0 {
		s.size += size
	}
	s.mu.Unlock()
	return nil
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
