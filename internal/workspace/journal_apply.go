package workspace

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
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
	temps := &tempFiles{dirs: make([]dirHandle, len(p.entries)), have: make([]bool, len(p.entries))}
	defer temps.closeAll()
	err = p.create(w, temps)
	if err == nil {
		err = j.commit()
	}
	if err != nil {
		// Before the commit, undoing means removing what was created.
		temps.remove(p.entries, 0)
		if rbErr := w.Rollback(); rbErr != nil {
			err = fmt.Errorf("%w; removing the directories created failed: %v", err, rbErr)
		}
		_ = j.close()
		return nil, nothingChanged(err)
	}
	crashPoint()
	if err := p.commit(w, temps); err != nil {
		_ = j.close()
		return nil, err
	}
	if err := j.close(); err != nil {
		return w, fmt.Errorf("the change was written, but its journal could not be removed: %w", err)
	}
	crashPoint()
	return w, nil
}

// tempFiles are the temporary files of a plan's entries. The directory
// each was created in stays open until the end: if the directory is moved
// away and a link put in its place meanwhile, the temporary file is still
// removed, where it is.
type tempFiles struct {
	dirs []dirHandle
	have []bool
}

// closeAll lets go of the directories still held.
func (t *tempFiles) closeAll() {
	for i, d := range t.dirs {
		if t.have[i] {
			d.close()
		}
	}
}

// release lets go of entry i's directory (its file was renamed into
// place).
func (t *tempFiles) release(i int) {
	if t.have[i] {
		t.dirs[i].close()
		t.have[i] = false
	}
}

// remove removes the temporary files from entry from on and lets go of
// every directory (a rollback may remove one; Windows refuses while it is
// held).
func (t *tempFiles) remove(entries []journalEntry, from int) {
	for i := range entries {
		if !t.have[i] {
			continue
		}
		if i >= from {
			// One that cannot be removed now is left for Recover's
			// sweep of its directory.
			_ = t.dirs[i].unlink(entries[i].Temp)
		}
		t.release(i)
	}
}

// create makes the plan's directories, recorded in w, and writes its
// temporary files: everything before the journal's commit.
func (p *prepared) create(w *Written, temps *tempFiles) error {
	for _, d := range p.dirs {
		if err := mkdirReal(d); err != nil {
			return fmt.Errorf("create directory %s: %w", d, unwrapPath(err))
		}
		w.steps = append(w.steps, step{kind: stepMkdir, path: d})
		crashPoint()
	}
	for i, e := range p.entries {
		if e.Remove {
			continue
		}
		d, err := writeTemp(e.Path, e.Temp, p.ops[i].content, p.steps[i].modeAfter(p.ops[i]))
		if err != nil {
			return err
		}
		temps.dirs[i], temps.have[i] = d, true
		crashPoint()
	}
	return nil
}

// commit carries out the committed journal's entries, recorded in w; when
// one fails it rolls back the ones before.
func (p *prepared) commit(w *Written, temps *tempFiles) error {
	for i, e := range p.entries {
		if err := commitEntry(e); err != nil {
			temps.remove(p.entries, i)
			if rbErr := w.Rollback(); rbErr != nil {
				return fmt.Errorf("%w; rolling back failed too, so files may be left changed: %v", err, rbErr)
			}
			return nothingChanged(err)
		}
		temps.release(i) // renamed into place
		w.steps = append(w.steps, p.steps[i])
		crashPoint()
	}
	return nil
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
		return swapped(e.Path, removeReal(e.Path))
	}
	d, err := openDir(filepath.Dir(e.Path))
	if err != nil {
		return swapped(e.Path, fmt.Errorf("write %s: %w", e.Path, unwrapPath(err)))
	}
	defer d.close()
	// The rename would replace a link planted at the name since the
	// check without following it; refusing it instead tells the model
	// that the file is not what it was.
	if mode, err := d.lstat(filepath.Base(e.Path)); err == nil && mode&fs.ModeSymlink != 0 {
		return swapped(e.Path, fmt.Errorf("write %s: %w", e.Path, ErrSymlink))
	}
	if err := renameAt(d, e.Temp, filepath.Base(e.Path)); err != nil {
		return fmt.Errorf("write %s: %w", e.Path, unwrapPath(err))
	}
	return nil
}

// SwappedError says that a path, or a folder on its way, became a
// symbolic link after the change was checked and before it was written
// (a command racing the write): the link was not followed and nothing
// was written. It matches ErrSymlink.
type SwappedError struct {
	Path   string // the file being written or removed
	Link   string // what became a link: Path or a folder above it
	Target string // where the link points, "" when unknown
}

func (e *SwappedError) Error() string {
	to := ""
	if e.Target != "" {
		to = " (to " + e.Target + ")"
	}
	what := "write " + e.Path + ": "
	if e.Link != e.Path {
		what += "the folder "
	}
	return what + e.Link + " became a symbolic link" + to +
		" after the change was checked; the link was not followed and nothing was written"
}

func (e *SwappedError) Is(target error) bool { return target == ErrSymlink }

// swapped turns an ErrSymlink met while writing path into a
// *SwappedError naming the link; other errors are returned as they are.
func swapped(path string, err error) error {
	if !errors.Is(err, ErrSymlink) {
		return err
	}
	var se *SwappedError
	if errors.As(err, &se) {
		return err
	}
	// The first link from the root down is what was swapped in; the
	// path's real directories held none when the change was checked.
	vol := filepath.VolumeName(path)
	cur := vol + string(filepath.Separator)
	for _, name := range strings.Split(strings.Trim(path[len(vol):], string(filepath.Separator)), string(filepath.Separator)) {
		cur = filepath.Join(cur, name)
		if fi, lerr := os.Lstat(cur); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			target, _ := os.Readlink(cur)
			return &SwappedError{Path: path, Link: cur, Target: target}
		}
	}
	return &SwappedError{Path: path, Link: path}
}

// nothingChanged says that a failed write set was undone; a
// *SwappedError says so itself.
func nothingChanged(err error) error {
	var se *SwappedError
	if errors.As(err, &se) {
		return err
	}
	return fmt.Errorf("%w; nothing was changed", err)
}

// writeTemp writes content to the temporary file temp in path's
// directory, following no link, and syncs it. It returns that directory,
// open: the caller removes the temporary file through it if the change
// is not carried out, wherever the directory is by then.
func writeTemp(path, temp string, content []byte, mode fs.FileMode) (dirHandle, error) {
	d, err := openDir(filepath.Dir(path))
	if err != nil {
		return d, swapped(path, fmt.Errorf("write %s: %w", path, unwrapPath(err)))
	}
	f, err := d.createExcl(temp)
	if err != nil {
		d.close()
		return d, fmt.Errorf("write %s: %w", path, err)
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
		d.close()
		return d, fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return d, nil
}

// removeTemps deletes, by path, the temporary files of entries that are
// still there (recovering a journal after a crash: the directories held
// open then are gone).
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
