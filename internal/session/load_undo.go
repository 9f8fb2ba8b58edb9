package session

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// undoLine keeps a turn's undo data; a later line of the same turn
// replaces the earlier one.
func (r *reader) undoLine(l line) {
	u := agent.UndoRecord{TurnID: l.Turn}
	if l.Kept != nil && *l.Kept {
		u.Contents = r.contents
	}
	for _, f := range l.Files {
		uf := agent.UndoFile{Path: f.Path, BeforeExists: f.BeforeExists, BeforeOffset: f.Offset, BeforeLength: f.Length, AfterExists: f.AfterExists}
		if sum, err := hex.DecodeString(f.AfterSum); err == nil && len(sum) == len(uf.AfterSum) {
			copy(uf.AfterSum[:], sum)
		}
		u.Files = append(u.Files, uf)
	}
	rec := &r.ld.Record
	if i, ok := r.undo[l.Turn]; ok {
		rec.Undo[i] = u
		return
	}
	r.undo[l.Turn] = len(rec.Undo)
	rec.Undo = append(rec.Undo, u)
}

// blobFile reads a session's undo contents, opening the file for each
// read: undo is rare, and no descriptor stays open for it.
type blobFile string

func (b blobFile) ReadAt(p []byte, off int64) (int, error) {
	f, err := os.Open(string(b))
	if err != nil {
		return 0, fmt.Errorf("the undo contents: %w", err)
	}
	defer f.Close()
	n, err := f.ReadAt(p, off)
	if errors.Is(err, io.EOF) && n < len(p) {
		err = fmt.Errorf("the undo contents end early: %w", io.ErrUnexpectedEOF)
	}
	return n, err
}
