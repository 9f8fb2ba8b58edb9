// Package session keeps agent-ls's sessions across restarts: each session
// is a JSON Lines file, written as the session happens and only ever
// appended to, from which a session is listed and brought back (its
// history for the model, its events for a client to redraw, its undo
// data and "always" answers).
//
// # The record
//
// A session's file is <dir>/<sessionId>.jsonl, one JSON object a line,
// each with its kind in "t":
//
//	{"t":"session","v":1,"at":TIME,"info":{sessionId,cwd,model,provider,approvalPolicy,sandboxMode}}  the first line
//	{"t":"item","item":ITEM}                 an item entered the history (what the model is sent)
//	{"t":"event","at":TIME,"turn":ID,"seq":N,"type":TYPE,"ev":EVENT}
//	                                         an event the session sent (EVENT: the agent/event object), all but
//	                                         deltas, command output and retries; usage events included
//	{"t":"undo","turn":ID,"files":[...]}     a turn's undo data; the contents are in <sessionId>.undo
//	{"t":"undone","turn":ID}                 the turn was undone
//	{"t":"settings","info":{...}}            the session runs with these settings from its next turn on
//	{"t":"approval","rule":RULE}             an "always" answer
//	{"t":"compaction","items":[ITEM...]}     a compaction replaced the whole history by these items
//
// A line is written, with one write, when its item is complete, so a
// process killed at any moment leaves every complete item on disk and at
// most one line cut short at the end, which loading ignores and reports.
// Kinds a reader does not know are skipped, so later versions can add
// some. Files are private to the user (0600 in a 0700 directory).
package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-ls/agent-ls/internal/agent"
)

// Version is the record format's version, in the first line.
const Version = 1

// Budgets of the undo contents kept on disk: a turn whose files held more
// than MaxUndoTurnBytes before it, or that would take a session's undo
// file past MaxUndoSessionBytes, stays undoable only until agent-ls
// stops.
const (
	MaxUndoTurnBytes    = 16 << 20
	MaxUndoSessionBytes = 256 << 20
)

// ErrNotFound: no session has that id.
var ErrNotFound = errors.New("no such session")

// ErrInUse: another agent-ls is recording the session.
var ErrInUse = errors.New("the session is open in another agent-ls")

// CheckFree reports ErrInUse when another process, or another user of
// this store, records session id: it is not to be brought back twice.
func (st *Store) CheckFree(id string) error {
	if err := checkID(id); err != nil {
		return err
	}
	if st.writing(id) {
		return ErrInUse
	}
	f, err := os.OpenFile(st.path(id), os.O_RDONLY, 0)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrNotFound, id)
	}
	defer f.Close()
	return lock(f)
}

// validID reports whether id has the shape of the ids agent-ls gives
// sessions: an ASCII letter or digit, then at most 127 of those, '_', '.'
// and '-'. Anything else could name a file outside the directory. (Written
// out rather than as a regexp: compiling `{0,127}` took 0.4 ms of every
// start.)
func validID(id string) bool {
	if id == "" || len(id) > 128 {
		return false
	}
	for i := range len(id) {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case i > 0 && (c == '_' || c == '.' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// Store keeps sessions in a directory.
type Store struct {
	dir string
	log *slog.Logger
	now func() time.Time

	mu      sync.Mutex
	writers map[string]*writer

	// notify, when set, tells the user of trouble with a record (see
	// Notify).
	notify atomic.Pointer[func(string)]
}

// Notify sets who tells the user when a record cannot be written, is
// written again, or has a gap: the front end (an editor's message, the
// terminal). Each call replaces the last; nil tells nobody. f is called
// on a goroutine of its own, never while a record is locked.
func (st *Store) Notify(f func(text string)) {
	if f == nil {
		st.notify.Store(nil)
		return
	}
	st.notify.Store(&f)
}

func (st *Store) tell(text string) {
	if f := st.notify.Load(); f != nil {
		go (*f)(text)
	}
}

// DefaultDir is where sessions are kept: $XDG_STATE_HOME/agent-ls/sessions
// (~/.local/state when the variable is unset or relative).
func DefaultDir() (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("session directory: %w", err)
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "agent-ls", "sessions"), nil
}

// New returns the store of dir, which is created (0700) when the first
// session is written.
func New(dir string, log *slog.Logger) *Store {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Store{dir: dir, log: log, now: time.Now, writers: make(map[string]*writer)}
}

// Dir is the store's directory.
func (st *Store) Dir() string { return st.dir }

// path is the record file of session id.
func (st *Store) path(id string) string { return filepath.Join(st.dir, id+".jsonl") }

// undoPath is the file of session id's undo contents.
func (st *Store) undoPath(id string) string { return filepath.Join(st.dir, id+".undo") }

// CheckpointDir is the folder of session id's checkpoint store
// (agent.Options.CheckpointDir): beside its record, and pruned with it.
func (st *Store) CheckpointDir(id string) string {
	if checkID(id) != nil {
		return ""
	}
	return filepath.Join(st.dir, id+".checkpoints")
}

// checkID refuses ids that are not agent-ls's: they come from clients.
func checkID(id string) error {
	if !validID(id) {
		return fmt.Errorf("%w: %q is not a session id", ErrNotFound, id)
	}
	return nil
}

// makeDir creates the directory private to the user, and makes an
// existing one so.
func (st *Store) makeDir() error {
	if err := os.MkdirAll(st.dir, 0o700); err != nil {
		return fmt.Errorf("session directory: %w", err)
	}
	if err := os.Chmod(st.dir, 0o700); err != nil {
		return fmt.Errorf("session directory: %w", err)
	}
	return nil
}

// Release closes the records of sessions whose manager is done with
// them, so they can be brought back elsewhere.
func (st *Store) Release(ids ...string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	for _, id := range ids {
		if w := st.writers[id]; w != nil {
			if err := w.close(); err != nil {
				st.log.Warn("closing a session record", "session", id, "err", err)
			}
			delete(st.writers, id)
		}
	}
}

// Close closes the files of the sessions written to.
func (st *Store) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	var errs []error
	for id, w := range st.writers {
		errs = append(errs, w.close())
		delete(st.writers, id)
	}
	return errors.Join(errs...)
}

// titleRunes bounds a session's title.
const titleRunes = 80

// List returns the kept sessions: those whose cwd is workspace or inside
// it first, each group most recently updated first. workspace "" puts
// them all in one group. A file that cannot be read is logged and left
// out.
func (st *Store) List(workspace string) ([]agent.SessionSummary, error) {
	out, err := st.each(st.summary)
	if err != nil {
		return nil, err
	}
	inside := func(s agent.SessionSummary) bool { return workspace != "" && within(workspace, s.Cwd) }
	slices.SortStableFunc(out, func(a, b agent.SessionSummary) int {
		if ia, ib := inside(a), inside(b); ia != ib {
			if ia {
				return -1
			}
			return 1
		}
		return b.UpdatedAt.Compare(a.UpdatedAt)
	})
	return out, nil
}

// each reads every kept session with read.
func (st *Store) each(read func(id string) (agent.SessionSummary, error)) ([]agent.SessionSummary, error) {
	entries, err := os.ReadDir(st.dir)
	if errors.Is(err, os.ErrNotExist) {
		return []agent.SessionSummary{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	out := []agent.SessionSummary{}
	for _, e := range entries {
		id, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !e.Type().IsRegular() || checkID(id) != nil {
			continue
		}
		s, err := read(id)
		if err != nil {
			st.log.Warn("a session file cannot be read", "file", st.path(id), "err", err)
			continue
		}
		out = append(out, s)
	}
	return out, nil
}

// Latest returns the most recently updated session of workspace, reading
// only the first line of each (its title and turns are left empty).
func (st *Store) Latest(workspace string) (agent.SessionSummary, error) {
	all, err := st.each(func(id string) (agent.SessionSummary, error) {
		f, err := os.Open(st.path(id))
		if err != nil {
			return agent.SessionSummary{}, err
		}
		defer f.Close()
		s, _, err := readHead(f)
		return s, err
	})
	if err != nil {
		return agent.SessionSummary{}, err
	}
	var best agent.SessionSummary
	for _, s := range all {
		if within(workspace, s.Cwd) && (best.SessionID == "" || s.UpdatedAt.After(best.UpdatedAt)) {
			best = s
		}
	}
	if best.SessionID == "" {
		return agent.SessionSummary{}, fmt.Errorf("%w: none of the workspace %s", ErrNotFound, workspace)
	}
	return best, nil
}

// within reports whether path is dir or inside it.
func within(dir, path string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// turnStartedMark is how a turnStarted event's line shows itself. Inside
// a JSON string every quote is escaped, so the mark appears only as the
// event's own type.
var turnStartedMark = []byte(`"type":"turnStarted"`)

// summary reads what List shows of a session without decoding the whole
// file: the first line, the first prompt, and the number of turns.
func (st *Store) summary(id string) (agent.SessionSummary, error) {
	f, err := os.Open(st.path(id))
	if err != nil {
		return agent.SessionSummary{}, err
	}
	defer f.Close()
	s, r, err := readHead(f)
	if err != nil {
		return agent.SessionSummary{}, err
	}
	for {
		l, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line (a large tool output): not a turn's start,
			// which would have begun with its mark within the buffer.
			if !bytes.HasPrefix(l, eventPrefix) || !bytes.Contains(l, turnStartedMark) {
				if err := skipLine(r); err != nil {
					break
				}
				continue
			}
			l, err = readRest(r, l)
		}
		if err != nil {
			break // the end, or a torn last line
		}
		if !bytes.HasPrefix(l, eventPrefix) || !bytes.Contains(l, turnStartedMark) {
			continue
		}
		s.Turns++
		if s.Title == "" {
			var ts struct {
				Ev struct {
					Prompt string `json:"prompt"`
				} `json:"ev"`
			}
			if json.Unmarshal(l, &ts) == nil {
				s.Title = title(ts.Ev.Prompt)
			}
		}
	}
	return s, nil
}

// readHead reads a record's first line into a summary (updated: the
// file's time), and returns the reader positioned after it.
func readHead(f *os.File) (agent.SessionSummary, *bufio.Reader, error) {
	fi, err := f.Stat()
	if err != nil {
		return agent.SessionSummary{}, nil, err
	}
	r := bufio.NewReaderSize(f, 64<<10)
	first, err := r.ReadBytes('\n')
	if err != nil {
		return agent.SessionSummary{}, nil, fmt.Errorf("no complete first line: %w", err)
	}
	var head line
	if err := json.Unmarshal(first, &head); err != nil || head.T != kindSession || head.Info == nil {
		return agent.SessionSummary{}, nil, fmt.Errorf("the first line is not a session's: %.80s", first)
	}
	return agent.SessionSummary{SessionID: head.Info.SessionID, Cwd: head.Info.Cwd, CreatedAt: head.At, UpdatedAt: fi.ModTime()}, r, nil
}

// eventPrefix starts every event line.
var eventPrefix = []byte(`{"t":"event"`)

func skipLine(r *bufio.Reader) error {
	for {
		_, err := r.ReadSlice('\n')
		if !errors.Is(err, bufio.ErrBufferFull) {
			return err
		}
	}
}

func readRest(r *bufio.Reader, start []byte) ([]byte, error) {
	b := slices.Clone(start)
	rest, err := r.ReadBytes('\n')
	return append(b, rest...), err
}

// title shortens a prompt to its first line, at most titleRunes.
func title(prompt string) string {
	p := strings.TrimSpace(prompt)
	if i := strings.IndexByte(p, '\n'); i >= 0 {
		p = strings.TrimSpace(p[:i]) + " …"
	}
	if r := []rune(p); len(r) > titleRunes {
		p = strings.TrimSpace(string(r[:titleRunes-1])) + "…"
	}
	return p
}

// Prune deletes the sessions not updated for age, except those written
// to by this store now, and returns their ids.
func (st *Store) Prune(age time.Duration) ([]string, error) {
	all, err := st.List("")
	if err != nil {
		return nil, err
	}
	cutoff := st.now().Add(-age)
	var gone []string
	var errs []error
	for _, s := range all {
		if !s.UpdatedAt.Before(cutoff) || st.writing(s.SessionID) {
			continue
		}
		err := st.remove(s.SessionID)
		if err == nil || !errors.Is(err, errRecordKept) {
			gone = append(gone, s.SessionID)
		}
		errs = append(errs, err)
	}
	slices.Sort(gone)
	return gone, errors.Join(errs...)
}

// errRecordKept: the session's record could not be deleted.
var errRecordKept = errors.New("the session's record is kept")

// Remove deletes a session that is not written to now: its record, its
// undo file and its checkpoints. exec removes a new session whose only
// turn failed before the model answered.
func (st *Store) Remove(id string) error {
	if st.writing(id) {
		return fmt.Errorf("session %s is in use", id)
	}
	return st.remove(id)
}

func (st *Store) remove(id string) error {
	if err := os.Remove(st.path(id)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%w: %w", errRecordKept, err)
	}
	err := os.Remove(st.undoPath(id))
	if errors.Is(err, os.ErrNotExist) {
		err = nil
	}
	return errors.Join(err, os.RemoveAll(st.CheckpointDir(id)))
}

func (st *Store) writing(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.writers[id] != nil
}
