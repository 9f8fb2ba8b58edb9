package workspace

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Recovered is what Recover did with one change set that a process left
// unfinished when it died.
type Recovered struct {
	Label string
	// Forward: the set was completed (its journal was committed, so every
	// new content was on disk); otherwise it was undone (nothing in the
	// workspace had changed yet).
	Forward bool
	// Files are the set's files, as the change named them.
	Files []string
	// Conflicts are files left as they are because they changed after
	// the crash, before this recovery.
	Conflicts []string
}

// Message says what happened, for the user.
func (r Recovered) Message() string {
	name := "a change set"
	if r.Label != "" {
		name = fmt.Sprintf("the change set %q", r.Label)
	}
	var b strings.Builder
	if r.Forward {
		fmt.Fprintf(&b, "agent-ls was stopped while applying %s; it has now completed it (all its new contents were already saved): %s",
			name, strings.Join(r.Files, ", "))
	} else {
		fmt.Fprintf(&b, "agent-ls was stopped while preparing %s; no file had changed yet, and it was undone: %s",
			name, strings.Join(r.Files, ", "))
	}
	if len(r.Conflicts) > 0 {
		fmt.Fprintf(&b, ". Left as they are, because they changed since: %s", strings.Join(r.Conflicts, ", "))
	}
	return b.String()
}

// Recover finishes every change set whose writer died (see journal.go):
// a committed set is rolled forward, any other rolled back; the
// temporary files the dead process left beside the set's files are
// removed, and so is its journal, so each set is reported once. A set
// whose writer still runs (its journal is locked), in this process or
// another agent-ls on the same workspace, is left alone.
func Recover() ([]Recovered, error) {
	dir, err := JournalDir()
	if err != nil {
		return nil, err
	}
	names, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the change journal: %w", err)
	}
	var done []Recovered
	var errs []error
	for _, n := range names {
		name := n.Name()
		partial := strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp")
		if !partial && !strings.HasSuffix(name, ".journal") {
			continue
		}
		r, err := recoverOne(filepath.Join(dir, name), partial)
		switch {
		case errors.Is(err, errNoJournal):
		case err != nil:
			errs = append(errs, err)
		case r != nil:
			done = append(done, *r)
		}
	}
	return done, errors.Join(errs...)
}

// recoverOne recovers the journal at path if its writer is dead.
func recoverOne(path string, partial bool) (*Recovered, error) {
	f, err := openJournalFile(path, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, errNoJournal
	}
	if err != nil {
		return nil, fmt.Errorf("open change journal %s: %w", path, err)
	}
	defer f.Close()
	if err := lockFile(f, false); err != nil {
		// Locked: its writer is alive.
		return nil, errNoJournal
	}
	// The writer may have finished (removed it) between our open and
	// lock: then this file is no longer the journal.
	held, err := f.Stat()
	if err != nil {
		return nil, errNoJournal
	}
	if named, err := os.Stat(path); err != nil || !os.SameFile(held, named) {
		return nil, errNoJournal
	}
	if partial {
		// Its writer died before the journal was complete, which is
		// before anything in a workspace was touched.
		return nil, os.Remove(path)
	}
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, fmt.Errorf("read change journal %s: %w", path, err)
	}
	first, rest, _ := bytes.Cut(data, []byte("\n"))
	var rec journalRecord
	if err := json.Unmarshal(first, &rec); err != nil || rec.Version != journalVersion {
		return nil, fmt.Errorf("change journal %s is not readable (left in place): %v", path, err)
	}
	r := &Recovered{Label: rec.Label, Forward: string(rest) == commitLine}
	seen := make(map[string]bool)
	for _, e := range rec.Entries {
		shown := e.Shown
		if shown == "" {
			shown = e.Path
		}
		if !seen[shown] {
			seen[shown] = true
			r.Files = append(r.Files, shown)
		}
	}
	if r.Forward {
		r.Conflicts = rollForward(rec.Entries)
	} else {
		removeTemps(rec.Entries)
		for i := len(rec.Dirs) - 1; i >= 0; i-- {
			_ = removeDirReal(rec.Dirs[i]) // not empty: someone uses it now
		}
	}
	sweepTemps(rec)
	if err := os.Remove(path); err != nil {
		return r, fmt.Errorf("remove change journal %s: %w", path, err)
	}
	return r, nil
}

// rollForward does what remains of a committed set: a temporary file
// still there was not renamed yet, a file to delete that still holds what
// the set expected is deleted. A file that holds something else changed
// after the crash and is left alone; its name is returned.
func rollForward(entries []journalEntry) (conflicts []string) {
	for _, e := range entries {
		shown := e.Shown
		if shown == "" {
			shown = e.Path
		}
		cur, exists, err := readCurrent(e.Path)
		if err != nil {
			conflicts = append(conflicts, shown)
			removeTemps([]journalEntry{e})
			continue
		}
		expected := (!exists && e.Before == "") || (exists && digest(cur) == e.Before)
		if e.Remove {
			if !exists {
				continue
			}
			if !expected || removeReal(e.Path) != nil {
				conflicts = append(conflicts, shown)
			}
			continue
		}
		if !tempExists(e) {
			continue // renamed before the crash
		}
		if !expected || commitEntry(e) != nil {
			conflicts = append(conflicts, shown)
			removeTemps([]journalEntry{e})
		}
	}
	return conflicts
}

func tempExists(e journalEntry) bool {
	d, err := openDir(filepath.Dir(e.Path))
	if err != nil {
		return false
	}
	defer d.close()
	_, err = d.lstat(e.Temp)
	return err == nil
}

// sweepTemps removes, in the directories of the set, the temporary files
// of the dead process (.NAME.agent-ls-PID-N), such as those of a rollback
// it was doing when it died.
func sweepTemps(rec journalRecord) {
	if rec.PID == os.Getpid() {
		return
	}
	infix := ".agent-ls-" + strconv.Itoa(rec.PID) + "-"
	dirs := make(map[string]bool)
	for _, e := range rec.Entries {
		dirs[filepath.Dir(e.Path)] = true
	}
	for d := range dirs {
		dh, err := openDir(d)
		if err != nil {
			continue
		}
		names, _ := readDirNames(d)
		for _, name := range names {
			i := strings.LastIndex(name, infix)
			if !strings.HasPrefix(name, ".") || i < 0 {
				continue
			}
			if _, err := strconv.ParseUint(name[i+len(infix):], 10, 64); err != nil {
				continue
			}
			if mode, err := dh.lstat(name); err == nil && mode.IsRegular() {
				_ = dh.unlink(name)
			}
		}
		dh.close()
	}
}
