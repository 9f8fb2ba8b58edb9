package tools

import (
	"strconv"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// FileView is the workspace as the user sees it: documents open in the
// editor (with their unsaved edits) over the files on disk.
// *workspace.Store satisfies it; DiskView is the view without an editor.
type FileView interface {
	// ReadFile returns the editor's text of path when it is open, else
	// the file on disk.
	ReadFile(path string) ([]byte, error)
	// Document returns the open document at path.
	Document(path string) (workspace.Doc, bool)
	// OpenPaths returns the keys of the open documents, sorted.
	OpenPaths() []string
}

// DiskView is a FileView with nothing open: every read goes to disk.
type DiskView struct{}

func (DiskView) ReadFile(path string) ([]byte, error)  { return workspace.ReadRegular(path) }
func (DiskView) Document(string) (workspace.Doc, bool) { return workspace.Doc{}, false }
func (DiskView) OpenPaths() []string                   { return nil }

var _ FileView = (*workspace.Store)(nil)

// files returns the view the call reads through.
func (env *Env) files() FileView {
	if env == nil || env.Files == nil {
		return DiskView{}
	}
	return env.Files
}

// searchDocs is a view as internal/search reads it.
type searchDocs struct{ FileView }

func (d searchDocs) Document(path string) (string, bool) {
	doc, ok := d.FileView.Document(path)
	return doc.Text, ok
}

func itoa(n int) string { return strconv.Itoa(n) }
