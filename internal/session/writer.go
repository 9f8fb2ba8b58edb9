package session

import (
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
)

// Line kinds (the "t" field).
const (
	kindSession    = "session"
	kindItem       = "item"
	kindEvent      = "event"
	kindUndo       = "undo"
	kindUndone     = "undone"
	kindApproval   = "approval"
	kindCompaction = "compaction"
	kindSettings   = "settings"
	kindQueued     = "queued"
	kindCheckpoint = "checkpoint"
	kindRewound    = "rewound"
)

// line is every kind of line; each kind sets its own fields. An event
// line is its header (at, turn, seq, type) followed by the whole event in
// "ev", last, so a reader can take the header without reading the event.
type line struct {
	T     string              `json:"t"`
	V     int                 `json:"v,omitempty"`
	At    time.Time           `json:"at,omitzero"`
	Info  *agent.SessionInfo  `json:"info,omitempty"`
	Item  *model.Item         `json:"item,omitempty"`
	Items []model.Item        `json:"items,omitempty"`
	Turn  string              `json:"turn,omitempty"`
	Files []undoFile          `json:"files,omitempty"`
	Kept  *bool               `json:"kept,omitempty"`
	Rule  *agent.ApprovalRule `json:"rule,omitempty"`
	Seq   int64               `json:"seq,omitempty"`
	Type  event.Type          `json:"type,omitempty"`
	Ev    json.RawMessage     `json:"ev,omitempty"`
	Input *agent.TurnInput    `json:"input,omitempty"`
	// Checkpoint is a turn's checkpoint; Turns and Keep say which turns
	// a rewind took out and how many history items it kept.
	Checkpoint *agent.TurnCheckpoint `json:"checkpoint,omitempty"`
	Turns      []string              `json:"turns,omitempty"`
	Keep       *int                  `json:"keep,omitempty"`
}

// evKey starts the event of an event line; the header before it holds
// no string that could contain it.
var evKey = []byte(`,"ev":`)

// undoFile is agent.UndoFile in a record: the offsets are in the
// session's undo file.
type undoFile struct {
	Path         string `json:"path"`
	BeforeExists bool   `json:"beforeExists"`
	Offset       int64  `json:"offset"`
	Length       int64  `json:"length"`
	AfterExists  bool   `json:"afterExists"`
	AfterSum     string `json:"afterSum"`
}

// recorded are the event types a record keeps: deltas, command output
// and a call's progress are in the events that complete them; a command
// session's output is the model's to read through write_stdin, and too
// much to keep.
func recorded(t event.Type) bool {
	switch t {
	case event.TypeMessageDelta, event.TypeReasoningDelta, event.TypeExecOutput, event.TypeToolProgress, event.TypeTerminalOutput, event.TypeRetry:
		return false
	}
	return true
}

// Observe is agent.Options.Observe: a new session's record starts with
// its settings; a restored one's goes on in its file.
func (st *Store) Observe(info agent.SessionInfo, restored bool) (agent.Observer, error) {
	if err := checkID(info.SessionID); err != nil {
		return nil, err
	}
	if err := st.makeDir(); err != nil {
		return nil, err
	}
	if st.writing(info.SessionID) {
		return nil, fmt.Errorf("session record: %w", ErrInUse)
	}
	flags := os.O_WRONLY | os.O_APPEND
	if !restored {
		flags |= os.O_CREATE | os.O_EXCL
	}
	f, err := os.OpenFile(st.path(info.SessionID), flags, 0o600)
	if err != nil {
		return nil, fmt.Errorf("session record: %w", err)
	}
	if err := lock(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("session record: %w", err)
	}
	w := &writer{st: st, id: info.SessionID, f: f, out: f}
	if restored {
		if err := endLine(f); err != nil {
			f.Close()
			return nil, fmt.Errorf("session record: %w", err)
		}
	}
	if !restored {
		w.write(line{T: kindSession, V: Version, At: st.now().UTC(), Info: &info})
	} else if fi, err := os.Stat(st.undoPath(info.SessionID)); err == nil {
		w.undoSize = fi.Size()
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.writers[info.SessionID] != nil {
		w.close()
		return nil, fmt.Errorf("session record: %w", ErrInUse)
	}
	st.writers[info.SessionID] = w
	return w, nil
}

// endLine ends a line a crash left cut short, so what is appended next
// starts a line of its own (the cut one stays, and is skipped on load).
func endLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	r, err := os.Open(f.Name())
	if err != nil {
		return err
	}
	defer r.Close()
	if _, err := r.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] != '\n' {
		_, err = f.Write([]byte{'\n'})
	}
	return err
}

// writer appends one session's record. Each line goes out in one write
// as soon as its item is complete; the file is synced when a turn ends.
type writer struct {
	st *Store
	id string

	mu sync.Mutex
	f  *os.File
	// out is where lines go: f, or a writer that fails on purpose in
	// tests.
	out      io.Writer
	buf      []byte
	undoSize int64
	// held are the lines not written yet, in order, since a write
	// failed (a full disk); each write tries them first, so the record
	// gets them back in order once writing works again.
	held      [][]byte
	heldBytes int
	heldSince time.Time
	lost      int  // lines dropped when held grew over maxHeld
	torn      bool // a cut line could not be taken back; start a new one
	// syncing: a sync of the file runs; syncs waits for it.
	syncing atomic.Bool
	syncs   sync.WaitGroup
}

// write appends l. Event lines are l's fields followed by the event's.
func (w *writer) write(l line) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeLocked(l)
}

// maxHeld bounds the lines held back while the record cannot be
// written; past it the oldest are lost, and the record has a gap.
const maxHeld = 64 << 20

func (w *writer) writeLocked(l line) {
	if w.f == nil {
		return
	}
	b, err := encode(l)
	if err != nil {
		w.st.log.Warn("a line of the session record cannot be encoded; it is left out", "session", w.id, "err", err)
		return
	}
	if len(w.held) == 0 {
		w.buf = append(append(w.buf[:0], b...), '\n')
		err := w.writeLine(w.buf)
		if err == nil {
			return
		}
		w.heldSince = w.st.now()
		w.st.log.Error("the session record cannot be written; its lines are held and written when writing works again",
			"session", w.id, "err", err)
		w.st.tell(fmt.Sprintf("agent-ls: the record of session %s cannot be written (%v); what happens is kept in memory and written when writing works again", w.id, err))
	}
	w.hold(append(b, '\n'))
	w.flushHeld()
}

// encode is l in JSON. An event line's event goes in last as it is:
// it is compact JSON already (json.Marshal's), and json.Marshal would
// check and compact it all again, which costs more than the rest of the
// line.
func encode(l line) ([]byte, error) {
	ev := l.Ev
	if ev == nil {
		return json.Marshal(l)
	}
	l.Ev = nil
	b, err := json.Marshal(l)
	if err != nil {
		return nil, err
	}
	// b is "{...}".
	b = append(b[:len(b)-1], evKey...)
	b = append(b, ev...)
	return append(b, '}'), nil
}

// writeLine writes one whole line, or nothing: a line a failed write
// cut short is taken back (the file is this process's, locked), or,
// when that fails too, ended by the next write, so that it stays a bad
// line of its own that a reader skips.
func (w *writer) writeLine(b []byte) error {
	if w.torn {
		if _, err := w.out.Write([]byte{'\n'}); err != nil {
			return err
		}
		w.torn = false
	}
	n, err := w.out.Write(b)
	if err != nil && n > 0 {
		fi, serr := w.f.Stat()
		if serr != nil || w.f.Truncate(fi.Size()-int64(n)) != nil {
			w.torn = true
		}
	}
	return err
}

// hold keeps b to write later, dropping the oldest held lines past
// maxHeld.
func (w *writer) hold(b []byte) {
	w.held = append(w.held, b)
	w.heldBytes += len(b)
	for w.heldBytes > maxHeld && len(w.held) > 1 {
		w.heldBytes -= len(w.held[0])
		w.held[0] = nil
		w.held = w.held[1:]
		w.lost++
	}
}

// flushHeld writes the held lines, in order, until one fails; once all
// are out it says so, and whether some were lost.
func (w *writer) flushHeld() {
	n := 0
	for len(w.held) > 0 {
		if err := w.writeLine(w.held[0]); err != nil {
			return
		}
		w.heldBytes -= len(w.held[0])
		w.held[0] = nil
		w.held = w.held[1:]
		n++
	}
	if n == 0 {
		return
	}
	w.held = nil
	if w.lost > 0 {
		w.st.log.Error("the session record is written again, but it has a gap: lines were lost while it could not be written; the session will not resume whole",
			"session", w.id, "lost", w.lost, "since", w.heldSince.UTC().Format(time.RFC3339))
		w.st.tell(fmt.Sprintf("agent-ls: the record of session %s is written again, but it has a gap: %s since %s were lost, so the session will not resume whole", w.id, countLines(w.lost), w.heldSince.UTC().Format(time.RFC3339)))
		w.lost = 0
		return
	}
	w.st.log.Warn("the session record is written again: the lines held back since it failed were appended, in order, and nothing was lost",
		"session", w.id, "since", w.heldSince.UTC().Format(time.RFC3339))
	w.st.tell(fmt.Sprintf("agent-ls: the record of session %s is written again; nothing was lost", w.id))
}

// countLines is "1 line", "n lines".
func countLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}

// close closes the file once a sync under way has ended: the file's
// lock goes only when its last use does, and whoever brings the session
// back next must find it free.
func (w *writer) close() error {
	w.mu.Lock()
	if len(w.held) > 0 {
		w.flushHeld()
		if len(w.held) > 0 {
			w.st.log.Error("the session record has a gap: lines that could not be written are lost; the session will not resume whole",
				"session", w.id, "lost", w.lost+len(w.held), "since", w.heldSince.UTC().Format(time.RFC3339))
			w.st.tell(fmt.Sprintf("agent-ls: the record of session %s has a gap: %s since %s could not be written and are lost, so the session will not resume whole", w.id, countLines(w.lost+len(w.held)), w.heldSince.UTC().Format(time.RFC3339)))
		}
	}
	f := w.f
	w.f = nil
	w.mu.Unlock()
	if f == nil {
		return nil
	}
	w.syncs.Wait()
	return f.Close()
}

// Item records a history item.
func (w *writer) Item(it model.Item) { w.write(line{T: kindItem, Item: &it}) }

// Event records an event, but deltas, command output, changes still
// under review and searches still under way; the end of a turn is synced to disk.
func (w *writer) Event(ev event.Event) {
	if !recorded(ev.Type()) {
		return
	}
	if fc, ok := ev.Payload.(event.FileChange); ok && fc.Status == event.ChangeProposed {
		// A change under review: the record keeps what became of it.
		return
	}
	if ws, ok := ev.Payload.(event.WebSearch); ok && ws.Status == event.WebSearchSearching {
		// A search under way: the record keeps how it ended.
		return
	}
	// ev's own MarshalJSON: compact, escaped JSON from json.Marshal,
	// that json.Marshal would only check and compact again.
	full, err := ev.MarshalJSON()
	if err != nil {
		w.st.log.Warn("an event is not recorded", "session", w.id, "err", err)
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writeLocked(line{T: kindEvent, At: w.st.now().UTC(), Turn: ev.TurnID, Seq: ev.Seq, Type: ev.Type(), Ev: full})
	if ev.Type() == event.TypeTurnCompleted && w.f != nil && w.syncing.CompareAndSwap(false, true) {
		// A kill loses nothing written; a sync at the end of each turn
		// guards against a power cut too, off the turn's path.
		w.syncs.Add(1)
		go w.sync(w.f)
	}
}

func (w *writer) sync(f *os.File) {
	defer w.syncs.Done()
	defer w.syncing.Store(false)
	if err := f.Sync(); err != nil && !errors.Is(err, os.ErrClosed) {
		w.st.log.Warn("the session record cannot be synced", "session", w.id, "err", err)
	}
}

// Settings records the settings the session runs with from now on.
func (w *writer) Settings(info agent.SessionInfo) { w.write(line{T: kindSettings, Info: &info}) }

// Compacted records that a compaction replaced the history by items.
func (w *writer) Compacted(items []model.Item) { w.write(line{T: kindCompaction, Items: items}) }

// Queued records the editor context and images of a queued prompt.
func (w *writer) Queued(turnID string, in agent.TurnInput) {
	w.write(line{T: kindQueued, Turn: turnID, Input: &in})
}

// Undone records that a turn was undone.
func (w *writer) Undone(turnID string) { w.write(line{T: kindUndone, Turn: turnID}) }

// Checkpoint records a turn's checkpoint (its contents are in the
// session's checkpoint store, CheckpointDir).
func (w *writer) Checkpoint(cp agent.TurnCheckpoint) {
	w.write(line{T: kindCheckpoint, Turn: cp.TurnID, Checkpoint: &cp})
}

// Rewound records that turns left the conversation, which kept its first
// keep items.
func (w *writer) Rewound(turnIDs []string, keep int) {
	w.write(line{T: kindRewound, Turns: turnIDs, Keep: &keep})
}

// Remembered records an "always" answer.
func (w *writer) Remembered(rule agent.ApprovalRule) { w.write(line{T: kindApproval, Rule: &rule}) }

// UndoKept copies a turn's before-contents to the session's undo file
// and records where they are, within the budgets; over them, the record
// says the contents were not kept.
func (w *writer) UndoKept(turnID string, files []agent.UndoFile, contents io.ReaderAt) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var total int64
	for _, f := range files {
		total += f.BeforeLength
	}
	recs := make([]undoFile, len(files))
	kept := total <= MaxUndoTurnBytes && w.undoSize+total <= MaxUndoSessionBytes
	if kept {
		if err := w.appendUndo(files, contents, recs); err != nil {
			w.st.log.Warn("a turn's contents are not kept for undo after a restart", "session", w.id, "turn", turnID, "err", err)
			kept = false
		}
	} else {
		w.st.log.Info("a turn changed too much to stay undoable after a restart", "session", w.id, "turn", turnID, "bytes", total)
	}
	for i, f := range files {
		recs[i].Path, recs[i].BeforeExists, recs[i].AfterExists = f.Path, f.BeforeExists, f.AfterExists
		recs[i].AfterSum = hex.EncodeToString(f.AfterSum[:])
	}
	w.writeLocked(line{T: kindUndo, Turn: turnID, Files: recs, Kept: &kept})
}

// appendUndo copies the before-contents to the end of the undo file and
// sets each record's offset and length there. Called with w.mu held.
func (w *writer) appendUndo(files []agent.UndoFile, contents io.ReaderAt, recs []undoFile) error {
	f, err := os.OpenFile(w.st.undoPath(w.id), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	off := w.undoSize
	for i, uf := range files {
		n, err := io.Copy(f, io.NewSectionReader(contents, uf.BeforeOffset, uf.BeforeLength))
		if err == nil && n != uf.BeforeLength {
			err = io.ErrUnexpectedEOF
		}
		if err != nil {
			// What was written is left unreferenced; the size stays
			// right for the next turn.
			if fi, serr := f.Stat(); serr == nil {
				w.undoSize = fi.Size()
			}
			return err
		}
		recs[i].Offset, recs[i].Length = off, n
		off += n
	}
	w.undoSize = off
	return nil
}
