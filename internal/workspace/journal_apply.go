package workspace

import (
	"fmt"
	"io/fs"
	"path/filepath"
)

// stepHook, when set (by tests), runs after every step of a journaled
// write that changes something on disk, so that a test can kill the
// process exactly there.
var stepHook func()

func crashPoint() {
	if stepHook != nil {
		stepHook()
	}
}

// prepared is a plan with what the journal and the rollback need: each
// operation's entry, the state before it, and the directories to create.
type prepared struct {
	ops     []op
	entries []journalEntry
	steps   []step // one per op, filled in as if it succeeds
	dirs    []string
}

// prepare reads what each operation replaces, tracking the effect of the
// operations before it on the same path.
func prepare(plan []op) (*prepared, error) {
	type pathState struct {
		content []byte
		exists  bool
		mode    fs.FileMode
	}
	states := make(map[string]*pathState)
	stateOf := func(path string) (*pathState, error) {
		if st, ok := states[path]; ok {
			return st, nil
		}
		content, exists, err := readCurrent(path)
		if err != nil {
			return nil, err
		}
		st := &pathState{content: content, exists: exists, mode: 0o644}
		if exists {
			if st.mode, err = modeOf(path); err != nil {
				return nil, err
			}
		}
		states[path] = st
		return st, nil
	}
	p := &prepared{ops: plan}
	planned := make(map[string]bool)
	for _, o := range plan {
		st, err := stateOf(o.path)
		if err != nil {
			return nil, err
		}
		e := journalEntry{Path: o.path, Shown: o.display, Remove: o.remove}
		if st.exists {
			e.Before = digest(st.content)
		}
		s := step{path: o.path, had: st.exists, old: st.content, mode: st.mode}
		if o.remove {
			s.kind = stepRemove
			*st = pathState{mode: 0o644}
		} else {
			dirs, err := missingDirs(filepath.Dir(o.path), planned)
			if err != nil {
				return nil, err
			}
			p.dirs = append(p.dirs, dirs...)
			mode := st.mode
			if o.mode != 0 {
				mode = o.mode
			}
			e.Temp = tempName(filepath.Base(o.path))
			e.After = digest(o.content)
			s.kind, s.wrote = stepWrite, o.content
			*st = pathState{content: o.content, exists: true, mode: mode}
		}
		p.entries = append(p.entries, e)
		p.steps = append(p.steps, s)
	}
	return p, nil
}

// missingDirs returns dir and its parents that do not exist and are not
// planned yet, parents first, and marks them planned.
func missingDirs(dir string, planned map[string]bool) ([]string, error) {
	var missing []string
	for d := dir; !planned[d]; d = filepath.Dir(d) {
		isDir, exists, err := dirState(d)
		if err != nil {
			return nil, fmt.Errorf("create directory %s: %w", dir, unwrapPath(err))
		}
		if exists {
			if !isDir {
				return nil, fmt.Errorf("create directory %s: %s is not a directory", dir, d)
			}
			break
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for i, j := 0, len(missing)-1; i < j; i, j = i+1, j-1 {
		missing[i], missing[j] = missing[j], missing[i]
	}
	for _, d := range missing {
		planned[d] = true
	}
	return missing, nil
}

// applyOps carries out plan through the journal (see journal.go): all of
// it, or, when something fails, none of it.
func applyOps(label string, plan []op) (*Written, error) {
	w := &Written{}
	if len(plan) == 0 {
		return w, nil
	}
	p, err := prepare(plan)
	if err != nil {
		return nil, fmt.Errorf("%w; nothing was changed", err)
	}
	j, err := openJournal(&journalRecord{Label: label, Dirs: p.dirs, Entries: p.entries})
	if err != nil {
		return nil, err
	}
	crashPoint()
	// Before the commit, undoing means removing what was created.
	abort := func(err error) (*Written, error) {
		removeTemps(p.entries)
		if rbErr := w.Rollback(); rbErr != nil {
			err = fmt.Errorf("%w; removing the directories created failed: %v", err, rbErr)
		}
		_ = j.close()
		return nil, fmt.Errorf("%w; nothing was changed", err)
	}
	for _, d := range p.dirs {
		if err := mkdirReal(d); err != nil {
			return abort(fmt.Errorf("create directory %s: %w", d, unwrapPath(err)))
		}
		w.steps = append(w.steps, step{kind: stepMkdir, path: d})
		crashPoint()
	}
	for i, e := range p.entries {
		if e.Remove {
			continue
		}
		if err := writeTemp(e.Path, e.Temp, p.ops[i].content, p.steps[i].modeAfter(p.ops[i])); err != nil {
			return abort(err)
		}
		crashPoint()
	}
	if err := j.commit(); err != nil {
		return abort(err)
	}
	crashPoint()
	for i, e := range p.entries {
		if err := commitEntry(e); err != nil {
			removeTemps(p.entries[i:])
			rbErr := w.Rollback()
			_ = j.close()
			if rbErr != nil {
				return nil, fmt.Errorf("%w; rolling back failed too, so files may be left changed: %v", err, rbErr)
			}
			return nil, fmt.Errorf("%w; nothing was changed", err)
		}
		w.steps = append(w.steps, p.steps[i])
		crashPoint()
	}
	if err := j.close(); err != nil {
		return w, fmt.Errorf("the change was written, but its journal could not be removed: %w", err)
	}
	crashPoint()
	return w, nil
}

// modeAfter is the mode the file of a write gets.
func (s step) modeAfter(o op) fs.FileMode {
	if o.mode != 0 {
		return o.mode
	}
	if s.had {
		return s.mode
	}
	return 0o644
}

// commitEntry does one operation of a committed journal.
func commitEntry(e journalEntry) error {
	if e.Remove {
		return removeReal(e.Path)
	}
	d, err := openDir(filepath.Dir(e.Path))
	if err != nil {
		return fmt.Errorf("write %s: %w", e.Path, unwrapPath(err))
	}
	defer d.close()
	if err := renameAt(d, e.Temp, filepath.Base(e.Path)); err != nil {
		return fmt.Errorf("write %s: %w", e.Path, unwrapPath(err))
	}
	return nil
}

// writeTemp writes content to the temporary file temp in path's
// directory, following no link, and syncs it.
func writeTemp(path, temp string, content []byte, mode fs.FileMode) error {
	d, err := openDir(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	defer d.close()
	f, err := d.createExcl(temp)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	_, err = f.Write(content)
	if err == nil {
		err = f.Chmod(mode)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = d.unlink(temp)
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
}

// removeTemps deletes the temporary files of entries that are still
// there.
func removeTemps(entries []journalEntry) {
	for _, e := range entries {
		if e.Temp == "" {
			continue
		}
		d, err := openDir(filepath.Dir(e.Path))
		if err != nil {
			continue
		}
		// A temporary file that cannot be removed now is left for
		// Recover's sweep of its directory.
		_ = d.unlink(e.Temp)
		d.close()
	}
}
