// Package workspace is the agent's view of the files: the documents the
// editor has open, with their unsaved edits, over the files on disk.
package workspace

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"sync"
)

// ErrNotOpen is returned for an operation on a document the editor has not
// opened.
var ErrNotOpen = errors.New("document is not open")

// ErrStaleVersion is returned for a change older than the document's
// version.
var ErrStaleVersion = errors.New("change is older than the document")

// Doc is one document as the editor has it.
type Doc struct {
	// Path is the document's key: the absolute file path for file URIs,
	// otherwise the URI itself.
	Path string
	// URI is the URI exactly as the editor sent it; edits for this document
	// must name it the same way.
	URI        string
	LanguageID string
	// Version is the editor's version of the text, rising with every change.
	Version int32
	Text    string
	// Dirty reports edits the editor has not saved to disk yet.
	Dirty bool
}

// Change is one edit of a document: Text replaces Range, or the whole
// document when Range is nil.
type Change struct {
	Range *Range
	Text  string
}

// Apply returns text with changes applied one after the other, positions
// read in enc.
func Apply(text string, enc Encoding, changes ...Change) string {
	t := newIndexedText(text)
	for _, c := range changes {
		t.apply(c, enc)
	}
	return t.text
}

// Store holds the documents the editor has open. It is safe for concurrent
// use: the language server applies edits while tools read.
type Store struct {
	mu   sync.RWMutex
	enc  Encoding
	docs map[string]*entry
}

// entry is an open document and the line index of its text.
type entry struct {
	doc  Doc
	text indexedText
}

// NewStore returns an empty store using UTF-16 positions.
func NewStore() *Store {
	return &Store{docs: make(map[string]*entry)}
}

// SetEncoding sets the position encoding of the ranges the store is given.
func (s *Store) SetEncoding(enc Encoding) {
	s.mu.Lock()
	s.enc = enc
	s.mu.Unlock()
}

// Encoding returns the position encoding in use.
func (s *Store) Encoding() Encoding {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.enc
}

// Open records a document the editor opened; it replaces any earlier state
// of the same path.
func (s *Store) Open(d Doc) {
	d.Path = clean(d.Path)
	d.Dirty = false
	e := &entry{doc: d, text: newIndexedText(d.Text)}
	s.mu.Lock()
	s.docs[d.Path] = e
	s.mu.Unlock()
}

// Change applies the editor's changes to an open document, in order, and
// records its new version.
func (s *Store) Change(path string, version int32, changes []Change) error {
	path = clean(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.docs[path]
	if !ok {
		return fmt.Errorf("change %s: %w", path, ErrNotOpen)
	}
	if version < e.doc.Version {
		// Versions only rise (LSP): this change is older than the text
		// held, which is kept rather than rolled back.
		return fmt.Errorf("change %s: %w (version %d after %d); the newer text is kept", path, ErrStaleVersion, version, e.doc.Version)
	}
	for _, c := range changes {
		e.text.apply(c, s.enc)
	}
	e.doc.Text = e.text.text
	e.doc.Version = version
	e.doc.Dirty = true
	return nil
}

// Save records that the editor wrote the document to disk.
func (s *Store) Save(path string) {
	path = clean(path)
	s.mu.Lock()
	if e, ok := s.docs[path]; ok {
		e.doc.Dirty = false
	}
	s.mu.Unlock()
}

// Close forgets a document; from now on its file on disk is what counts.
// It returns the size of the text it let go (0 when the document was not
// open), so that the caller can give a large one's memory back.
func (s *Store) Close(path string) int {
	path = clean(path)
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.docs[path]
	if !ok {
		return 0
	}
	delete(s.docs, path)
	return len(e.doc.Text)
}

// Document returns the open document at path.
func (s *Store) Document(path string) (Doc, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.docs[clean(path)]
	if !ok {
		return Doc{}, false
	}
	return e.doc, true
}

// OpenPaths returns the paths of the open documents, sorted.
func (s *Store) OpenPaths() []string {
	s.mu.RLock()
	paths := make([]string, 0, len(s.docs))
	for p := range s.docs {
		paths = append(paths, p)
	}
	s.mu.RUnlock()
	slices.Sort(paths)
	return paths
}

// ReadFile returns the content of path as the user sees it: the editor's
// text, unsaved edits included, when the document is open, else the file on
// disk.
func (s *Store) ReadFile(path string) ([]byte, error) {
	if d, ok := s.Document(path); ok {
		return []byte(d.Text), nil
	}
	return ReadRegular(path)
}

// clean normalises file paths so that one file has one key; other keys
// (URIs of unsaved buffers) are left alone.
func clean(path string) string {
	if filepath.IsAbs(path) {
		return filepath.Clean(path)
	}
	return path
}
