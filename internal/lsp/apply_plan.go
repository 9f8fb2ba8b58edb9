package lsp

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/workspace"
)

// editPlan splits a change set between the disk and the editor.
type editPlan struct {
	disk *workspace.ChangeSet
	edit protocol.WorkspaceEdit
	// open are the documents the editor edits, to wait for.
	open []*openEdit
	// paths are the open documents the edit is for.
	paths []string
}

// openEdit is a document the editor is asked to change.
type openEdit struct {
	// path is where the document is after the edit (a rename moves it).
	path string
	// old is the text the change was computed from, new the text after.
	old, new string
	// clean: disk held old (the buffer had no unsaved edits, or they
	// were taken back), so the new text may be saved.
	clean bool
	// edit is the TextDocumentEdit whose edits are filled in last.
	edit *protocol.TextDocumentEdit
	uri  uri.URI
}

func (s *server) planEdit(cs *workspace.ChangeSet, caps ClientCapabilities) (*editPlan, error) {
	pl := &editPlanner{
		p:      &editPlan{disk: &workspace.ChangeSet{Label: cs.Label}},
		caps:   caps,
		edited: make(map[string]*openEdit),
	}
	for _, c := range cs.Changes {
		doc, open := s.store.Document(c.Path)
		if !open {
			pl.p.disk.Changes = append(pl.p.disk.Changes, c)
			continue
		}
		if err := pl.change(c, doc); err != nil {
			return nil, err
		}
	}
	// The texts are final now: compute the edits.
	pl.p.fillEdits(s.store.Encoding())
	return pl.p, nil
}

// editPlanner builds an editPlan one change after the other.
type editPlanner struct {
	p    *editPlan
	caps ClientCapabilities
	// edited are the documents with a text edit, by path, so that two
	// changes of one document make one edit.
	edited map[string]*openEdit
}

// canOp reports whether the client applies the resource operation op.
func (pl *editPlanner) canOp(op string) bool {
	return pl.caps.DocumentChanges && slices.Contains(pl.caps.ResourceOperations, op)
}

// change plans the change c of the open document doc.
func (pl *editPlanner) change(c workspace.FileChange, doc workspace.Doc) error {
	path := doc.Path
	base := doc.Text
	prev := pl.edited[path]
	if prev != nil {
		base = prev.new
	}
	if c.OldContent == nil || string(c.OldContent) != base {
		return &workspace.RejectedError{
			Reason: path + " was edited in the editor since it was read",
			Paths:  []string{path},
		}
	}
	if !slices.Contains(pl.p.paths, path) {
		pl.p.paths = append(pl.p.paths, path)
	}
	switch c.Kind {
	case workspace.Add, workspace.Update:
		pl.textEdit(doc, base, prev, string(c.NewContent))
	case workspace.Delete:
		if !pl.canOp("delete") {
			return pl.toDisk(c)
		}
		pl.p.edit.DocumentChanges = append(pl.p.edit.DocumentChanges,
			&protocol.DeleteFile{Kind: "delete", URI: uri.URI(doc.URI), Options: &protocol.DeleteFileOptions{IgnoreIfNotExists: ptrTo(true)}})
		if prev != nil {
			pl.p.open = slices.DeleteFunc(pl.p.open, func(oe *openEdit) bool { return oe == prev })
			delete(pl.edited, path)
		}
	case workspace.Move:
		if !pl.canOp("rename") {
			return pl.toDisk(c)
		}
		pl.rename(c, doc, base, prev)
	default:
		return fmt.Errorf("change of %s: unknown kind %v", c.Path, c.Kind)
	}
	return nil
}

// textEdit asks for doc's text to become text: the document's pending
// edit prev, when there is one, takes the new text; otherwise a new edit
// of the version known is added.
func (pl *editPlanner) textEdit(doc workspace.Doc, base string, prev *openEdit, text string) *openEdit {
	if prev != nil {
		prev.new = text
		return prev
	}
	oe := &openEdit{path: doc.Path, old: base, new: text, clean: savedOnDisk(doc, base), uri: uri.URI(doc.URI)}
	if pl.caps.DocumentChanges {
		v := doc.Version
		oe.edit = &protocol.TextDocumentEdit{TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{
			TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: oe.uri}, Version: &v,
		}}
		pl.p.edit.DocumentChanges = append(pl.p.edit.DocumentChanges, oe.edit)
	}
	pl.edited[doc.Path] = oe
	pl.p.open = append(pl.p.open, oe)
	return oe
}

// rename edits the document where it is, with the version known, then
// moves it: the buffer follows its file.
func (pl *editPlanner) rename(c workspace.FileChange, doc workspace.Doc, base string, prev *openEdit) {
	oe := prev
	if string(c.NewContent) != base {
		oe = pl.textEdit(doc, base, prev, string(c.NewContent))
	}
	dest := filepath.Clean(c.NewPath)
	op := &protocol.RenameFile{Kind: "rename", OldURI: uri.URI(doc.URI), NewURI: uri.File(dest)}
	if _, err := os.Lstat(dest); err == nil {
		op.Options = &protocol.RenameFileOptions{Overwrite: ptrTo(true)}
	}
	pl.p.edit.DocumentChanges = append(pl.p.edit.DocumentChanges, op)
	if oe == nil {
		oe = &openEdit{old: base, new: base, clean: savedOnDisk(doc, base)}
		pl.p.open = append(pl.p.open, oe)
	}
	delete(pl.edited, doc.Path)
	oe.path = dest
}

// savedOnDisk reports whether doc's file holds base, the text the edit
// starts from: a buffer without unsaved edits, or one whose edits were
// taken back (VS Code's "Revert File" or undoing to the saved text sends
// changes but no save). Such a buffer is saved after the agent's edit as
// a clean one is.
func savedOnDisk(doc workspace.Doc, base string) bool {
	if !doc.Dirty {
		return true
	}
	if !filepath.IsAbs(doc.Path) {
		return false // not a file: its key is a URI
	}
	// A FIFO or device put where the file was is not waited on.
	f, st, err := workspace.OpenRegular(doc.Path)
	if err != nil {
		return false
	}
	defer f.Close()
	if st.Size() != int64(len(base)) {
		return false
	}
	b := make([]byte, len(base)+1)
	n, _ := io.ReadFull(f, b)
	return n == len(base) && string(b[:n]) == base
}

// toDisk plans the change of an open document as a change of its file,
// for a client that cannot apply the resource operation.
func (pl *editPlanner) toDisk(c workspace.FileChange) error {
	dc, ok, err := onDisk(c)
	if err != nil {
		return err
	}
	if ok {
		pl.p.disk.Changes = append(pl.p.disk.Changes, dc)
	}
	return nil
}

// fillEdits computes the text edits of the documents the editor changes,
// once their final texts are known.
func (p *editPlan) fillEdits(enc workspace.Encoding) {
	for _, oe := range p.open {
		if oe.uri == "" {
			continue // moved without a text edit
		}
		tes := textEdits(oe.old, oe.new, enc)
		if oe.edit != nil {
			oe.edit.Edits = make([]protocol.TextDocumentEditElement, len(tes))
			for j := range tes {
				oe.edit.Edits[j] = &tes[j]
			}
			continue
		}
		if p.edit.Changes == nil {
			p.edit.Changes = make(map[uri.URI][]protocol.TextEdit)
		}
		p.edit.Changes[oe.uri] = tes
	}
}

// onDisk turns the change of an open document into a change of its file,
// whose content may differ from the buffer's (unsaved edits). ok is false
// when there is nothing to do on disk.
func onDisk(c workspace.FileChange) (fc workspace.FileChange, ok bool, err error) {
	cur, err := os.ReadFile(c.Path)
	if errors.Is(err, os.ErrNotExist) {
		cur, err = nil, nil
	}
	if err != nil {
		return fc, false, fmt.Errorf("read %s: %w", c.Path, err)
	}
	fc = c
	fc.OldContent = cur
	if cur != nil {
		return fc, true, nil
	}
	// An unsaved buffer without a file: only a Move has something to write.
	if c.Kind != workspace.Move {
		return fc, false, nil
	}
	dest, err := os.ReadFile(c.NewPath)
	if errors.Is(err, os.ErrNotExist) {
		dest, err = nil, nil
	}
	if err != nil {
		return fc, false, fmt.Errorf("read %s: %w", c.NewPath, err)
	}
	return workspace.FileChange{Kind: workspace.Add, Path: c.NewPath, OldContent: dest, NewContent: c.NewContent}, true, nil
}
