package agent

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
)

// undoStore keeps, for the latest turns of a session that changed files,
// what undo needs: each file's content before the turn, and a digest of
// its content after. The contents live in an unlinked temporary file per
// turn, not in memory, so a long session that rewrites large files stays
// small; the files vanish with the process whatever way it ends. Only the
// latest max turns are kept.
type undoStore struct {
	mu    sync.Mutex
	max   int
	order []string // turn ids, oldest first
	turns map[string]*undoTurn
}

// undoTurn is one turn's undo data.
type undoTurn struct {
	mu sync.Mutex
	// spool has the before-contents, back to back: the turn's unlinked
	// temporary file, or a session record's store of them.
	spool  io.ReaderAt
	files  []UndoFile
	undone bool
}

func newUndoStore(max int) *undoStore {
	if max <= 0 {
		max = DefaultUndoTurns
	}
	return &undoStore{max: max, turns: make(map[string]*undoTurn)}
}

// keep moves what a finished turn changed into the store.
func (u *undoStore) keep(turnID string, tf *turnFiles) (*undoTurn, error) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	spool, err := os.CreateTemp("", "agent-ls-undo-*")
	if err != nil {
		return nil, fmt.Errorf("saving the turn's contents for undo: %w", err)
	}
	// Unlinked at once: the data stays reachable through the descriptor
	// and is freed when it closes, even if the process is killed.
	os.Remove(spool.Name())
	ut := &undoTurn{spool: spool}
	var off int64
	for _, p := range tf.order {
		before, after := tf.before[p], tf.after[p]
		f := UndoFile{Path: p, BeforeExists: before.exists, BeforeOffset: off, BeforeLength: int64(len(before.content)),
			AfterExists: after.exists, AfterSum: sha256.Sum256(after.content)}
		if _, err := spool.Write(before.content); err != nil {
			spool.Close()
			return nil, fmt.Errorf("saving the turn's contents for undo: %w", err)
		}
		off += f.BeforeLength
		ut.files = append(ut.files, f)
	}
	// The turn's own copies are no longer needed.
	tf.before, tf.after = nil, nil

	u.add(turnID, ut)
	return ut, nil
}

// restore brings back a turn's undo data from a session's record.
func (u *undoStore) restore(r UndoRecord) {
	u.add(r.TurnID, &undoTurn{spool: r.Contents, files: r.Files, undone: r.Undone})
}

// add keeps ut as turnID's undo data, forgetting the oldest beyond max.
func (u *undoStore) add(turnID string, ut *undoTurn) {
	u.mu.Lock()
	defer u.mu.Unlock()
	if old := u.turns[turnID]; old != nil {
		old.close()
	} else {
		u.order = append(u.order, turnID)
	}
	u.turns[turnID] = ut
	for len(u.order) > u.max {
		old := u.order[0]
		u.order = u.order[1:]
		if t := u.turns[old]; t != nil {
			t.close()
		}
		delete(u.turns, old)
	}
}

// get returns the undo data of a turn, nil when it changed no files or is
// too old to be kept.
func (u *undoStore) get(turnID string) *undoTurn {
	u.mu.Lock()
	defer u.mu.Unlock()
	return u.turns[turnID]
}

func (u *undoStore) close() {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, t := range u.turns {
		t.close()
	}
	u.turns, u.order = make(map[string]*undoTurn), nil
}

func (t *undoTurn) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if c, ok := t.spool.(io.Closer); ok {
		c.Close()
	}
	t.spool = nil
}

// before reads a file's content before the turn.
func (t *undoTurn) before(f UndoFile) ([]byte, error) {
	if t.spool == nil {
		return nil, errors.New("the turn's saved contents are gone")
	}
	b := make([]byte, f.BeforeLength)
	if _, err := t.spool.ReadAt(b, f.BeforeOffset); err != nil && !(errors.Is(err, io.EOF) && f.BeforeLength == 0) {
		return nil, fmt.Errorf("reading the saved content of %s: %w", f.Path, err)
	}
	return b, nil
}
