package workspace

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// A change set written to disk is crash-safe through an intent journal, a
// file outside the workspace (JournalDir) that lists every operation of
// the set before anything in the workspace changes:
//
//  1. the journal is written (under a hidden name, locked with flock,
//     then renamed to <id>.journal) naming each file, the temporary file
//     that will carry its new content and a digest of what the file holds
//     before and after;
//  2. missing directories are created and every new content is written
//     to its temporary file and synced;
//  3. a commit line is appended to the journal and synced: from here on
//     the whole new state is on disk;
//  4. the temporary files are renamed over their files and deleted files
//     are removed;
//  5. the journal is removed (then unlocked).
//
// The writer holds the flock from 1 to 5, so a journal whose lock can be
// taken belongs to a process that died. Recover, run when agent-ls starts,
// finishes such a set: before the commit line nothing in the workspace
// had changed yet, so the set is rolled back (temporary files and created
// directories removed); after it, every new content was durably on disk
// and the user had approved the set, so it is rolled forward (the
// remaining renames and removals done), which needs no copy of the old
// contents. Either way every file of the set ends all old or all new.

// journalVersion is the format of the journal's first line.
const journalVersion = 1

// commitLine marks a journal whose temporary files are all written.
const commitLine = "commit\n"

// journalEntry is one operation of a journaled change set.
type journalEntry struct {
	// Path is the real path the operation acts on.
	Path string `json:"path"`
	// Shown is the path as the change named it, for messages.
	Shown string `json:"shown,omitempty"`
	// Remove: delete Path; otherwise rename Temp (a name in Path's
	// directory) over Path.
	Remove bool   `json:"remove,omitempty"`
	Temp   string `json:"temp,omitempty"`
	// Before is the digest of what Path holds before this operation (""
	// if nothing), After of what it holds after ("" if removed).
	Before string `json:"before,omitempty"`
	After  string `json:"after,omitempty"`
}

// journalRecord is the journal's first line.
type journalRecord struct {
	Version int    `json:"version"`
	PID     int    `json:"pid"`
	Started string `json:"started"`
	Label   string `json:"label,omitempty"`
	// Dirs are the directories the set creates, parents first.
	Dirs    []string       `json:"dirs,omitempty"`
	Entries []journalEntry `json:"entries"`
}

// JournalDir is where change-set journals live: $XDG_STATE_HOME/agent-ls/
// journal, by default ~/.local/state/agent-ls/journal. Never inside a
// workspace, so no command or editor sees them.
func JournalDir() (string, error) {
	state := os.Getenv("XDG_STATE_HOME")
	if state == "" || !filepath.IsAbs(state) {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", fmt.Errorf("no place for the change journal: %w", err)
		}
		state = filepath.Join(home, ".local", "state")
	}
	return filepath.Join(state, "agent-ls", "journal"), nil
}

// digest names a content in a journal.
func digest(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// journal is an open, locked journal of a set being applied.
type journal struct {
	f    *os.File
	path string
}

// openJournal writes rec to a new journal and returns it locked. The file
// gets its final name only once complete and locked, so Recover never
// sees a journal that is being written.
func openJournal(rec *journalRecord) (*journal, error) {
	dir, err := JournalDir()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create the change journal's directory: %w", err)
	}
	var nonce [6]byte
	_, _ = rand.Read(nonce[:])
	id := strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(nonce[:])
	hidden := filepath.Join(dir, "."+id+".tmp")
	f, err := openJournalFile(hidden, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create the change journal: %w", err)
	}
	fail := func(err error) (*journal, error) {
		f.Close()
		os.Remove(hidden)
		return nil, fmt.Errorf("write the change journal: %w", err)
	}
	if err := lockFile(f, true); err != nil {
		return fail(err)
	}
	rec.Version = journalVersion
	rec.PID = os.Getpid()
	rec.Started = time.Now().UTC().Format(time.RFC3339Nano)
	line, err := json.Marshal(rec)
	if err != nil {
		return fail(err)
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		return fail(err)
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	final := filepath.Join(dir, id+".journal")
	if err := os.Rename(hidden, final); err != nil {
		return fail(err)
	}
	syncDir(dir)
	return &journal{f: f, path: final}, nil
}

// commit records that every temporary file is written.
func (j *journal) commit() error {
	if _, err := j.f.WriteString(commitLine); err != nil {
		return fmt.Errorf("commit the change journal: %w", err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("commit the change journal: %w", err)
	}
	return nil
}

// close removes the journal, then releases its lock: the set is done
// (or undone).
func (j *journal) close() error {
	err := os.Remove(j.path)
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// syncDir makes a rename in dir durable; a failure only weakens the
// guarantee against power loss, not against a crash of agent-ls.
func syncDir(dir string) {
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync()
		d.Close()
	}
}

// tempName is the name of the temporary file that carries a new content
// of base until it is renamed over it. The process id lets Recover find
// the temporary files a dead process left.
func tempName(base string) string {
	return "." + base + ".agent-ls-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatUint(tmpCounter.Add(1), 10)
}

// errNoJournal says a journal vanished before it could be recovered:
// its owner finished it.
var errNoJournal = errors.New("journal already finished")
