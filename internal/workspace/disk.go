package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agent-ls/agent-ls/internal/policy"
)

// ChangedError says a file no longer holds the content a change was
// computed from: someone changed it after it was read. Nothing of the
// change set was written.
type ChangedError struct {
	Path string
	// Detail says how it differs ("it was deleted", "it exists now", ...).
	Detail string
}

func (e *ChangedError) Error() string {
	msg := e.Path + " changed since it was read"
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg + "; nothing was changed"
}

// WriteToDisk applies every change of cs to disk, all or nothing. Each
// file is replaced atomically (a temporary file in the same directory,
// renamed over it), keeping the mode of the file it replaces; new files
// get 0644, and their missing parent directories are created. Changes go
// to their real paths (FileChange.Real) and follow no symbolic link on
// the way (see nofollow.go); a link to a file is kept and its target
// rewritten, because the real path is the target. A file is
// written only if it still holds the change's OldContent (nil: it must not
// exist); otherwise a *ChangedError names it and nothing is written. If a
// write fails part-way, everything already written is undone, and the
// error says what failed and that nothing was changed.
func WriteToDisk(cs *ChangeSet) error {
	_, err := Write(cs)
	return err
}

// Written is a change set written to disk, which can still be rolled back.
type Written struct {
	steps []step
}

// step is one undoable thing done to the disk.
type step struct {
	kind stepKind
	path string
	// had, old and mode are what the path held before (had false: it did
	// not exist); wrote is what is there now (nil after a removal).
	had   bool
	old   []byte
	mode  fs.FileMode
	wrote []byte
}

type stepKind int

const (
	stepWrite stepKind = iota
	stepRemove
	stepMkdir
)

// Write is WriteToDisk, returning what it did so that the caller can
// still roll it back, such as when the editor refuses the part of a change
// set that was sent to it.
func Write(cs *ChangeSet) (*Written, error) {
	plan, err := planWrites(cs)
	if err != nil {
		return nil, err
	}
	return applyOps(cs.Label, plan)
}

// Rollback undoes the writes, last first: files written get their old
// content and mode back (or are removed if they were new), removed files
// come back, created directories go again. A file that no longer holds
// what was written (someone changed it since) is left alone and named in
// the error.
func (w *Written) Rollback() error {
	if w == nil {
		return nil
	}
	plan, dirs, errs := w.undoPlan()
	w.steps = nil
	if _, err := applyOps("undo", plan); err != nil {
		errs = append(errs, err)
	}
	for _, d := range dirs {
		if err := removeDirReal(d); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, fmt.Errorf("remove directory %s: %w", d, err))
		}
	}
	return errors.Join(errs...)
}

// undoPlan returns the operations that undo the steps, last first, and
// the directories to remove after them; a step whose file no longer holds
// what it left there is skipped and named in errs.
func (w *Written) undoPlan() (plan []op, dirs []string, errs []error) {
	// planned is what a path holds once the operations so far are done
	// (nil value: nothing).
	planned := make(map[string]*[]byte)
	current := func(path string) ([]byte, bool, error) {
		if c, ok := planned[path]; ok {
			if c == nil {
				return nil, false, nil
			}
			return *c, true, nil
		}
		return readCurrent(path)
	}
	for i := len(w.steps) - 1; i >= 0; i-- {
		st := w.steps[i]
		if st.kind == stepMkdir {
			dirs = append(dirs, st.path)
			continue
		}
		cur, exists, err := current(st.path)
		switch {
		case err != nil:
			errs = append(errs, err)
			continue
		case st.kind == stepWrite && (!exists || !bytes.Equal(cur, st.wrote)):
			errs = append(errs, fmt.Errorf("%s was changed by someone else: not restored", st.path))
			continue
		case st.kind == stepRemove && exists:
			errs = append(errs, fmt.Errorf("%s was created again by someone else: not restored", st.path))
			continue
		}
		if st.kind == stepWrite && !st.had {
			plan = append(plan, op{path: st.path, display: st.path, remove: true})
			planned[st.path] = nil
			continue
		}
		old := nonNil(st.old)
		plan = append(plan, op{path: st.path, display: st.path, content: old, mode: st.mode})
		planned[st.path] = &old
	}
	return plan, dirs, errs
}

// op is one file operation of a plan: write content to path (with mode),
// or remove path.
type op struct {
	path    string // real
	display string // as the change names it
	remove  bool
	content []byte
	mode    fs.FileMode // 0: keep the existing file's, else 0644
}

// planWrites checks every change against the disk, as it will be after
// the changes before it, and returns the file operations to carry out.
func planWrites(cs *ChangeSet) ([]op, error) {
	p := &writePlanner{state: make(map[string]*[]byte), modes: make(map[string]fs.FileMode)}
	for i, c := range cs.Changes {
		if err := p.change(i, c); err != nil {
			return nil, err
		}
	}
	return p.plan, nil
}

// writePlanner plans the operations of a change set, one change after
// the other, keeping what each path will hold once the changes planned
// so far are done.
type writePlanner struct {
	// state is the content a path will have after the changes planned
	// so far (nil value: removed).
	state map[string]*[]byte
	modes map[string]fs.FileMode // of files moved, at their destination
	plan  []op
}

// change checks the i-th change c and plans its operations.
func (p *writePlanner) change(i int, c FileChange) error {
	if !filepath.IsAbs(c.Path) || (c.Kind == Move && !filepath.IsAbs(c.NewPath)) {
		return fmt.Errorf("change %d (%s %s): paths must be absolute", i+1, c.Kind, c.Path)
	}
	path, err := realOf(c.Path, c.Real)
	if err != nil {
		return err
	}
	shown := filepath.Clean(c.Path)
	switch c.Kind {
	case Add, Update:
		if c.Kind == Update && c.OldContent == nil {
			return fmt.Errorf("update %s: no old content", path)
		}
		if err := p.expect(path, c.OldContent); err != nil {
			return named(err, shown)
		}
		p.write(op{path: path, display: shown, content: nonNil(c.NewContent)})
	case Delete:
		if c.OldContent == nil {
			return fmt.Errorf("delete %s: no old content", path)
		}
		if err := p.expect(path, c.OldContent); err != nil {
			return named(err, shown)
		}
		p.write(op{path: path, display: shown, remove: true})
	case Move:
		return p.move(c, path, shown)
	default:
		return fmt.Errorf("change %d of %s: unknown kind %d", i+1, path, c.Kind)
	}
	return nil
}

// move plans a Move of the real path (shown as the change names it):
// the new content written at the destination, with the file's mode, and
// the file removed.
func (p *writePlanner) move(c FileChange, path, shown string) error {
	dest, err := realOf(c.NewPath, c.NewReal)
	if err != nil {
		return err
	}
	if c.OldContent == nil {
		return fmt.Errorf("move %s: no old content", path)
	}
	if err := p.expect(path, c.OldContent); err != nil {
		return named(err, shown)
	}
	if dest == path {
		p.write(op{path: path, display: shown, content: nonNil(c.NewContent)})
		return nil
	}
	// The destination may exist: a move replaces it.
	if _, _, err := p.current(dest); err != nil {
		return err
	}
	mode, ok := p.modes[path]
	if !ok {
		if m, err := modeOf(path); err == nil {
			mode = m
		}
	}
	p.modes[dest] = mode
	p.write(op{path: dest, display: filepath.Clean(c.NewPath), content: nonNil(c.NewContent), mode: mode})
	p.write(op{path: path, display: shown, remove: true})
	return nil
}

// current is what path will hold after the changes planned so far.
func (p *writePlanner) current(path string) ([]byte, bool, error) {
	if c, ok := p.state[path]; ok {
		if c == nil {
			return nil, false, nil
		}
		return *c, true, nil
	}
	return readCurrent(path)
}

// expect checks that path will hold want (nil: that it will not exist).
func (p *writePlanner) expect(path string, want []byte) error {
	cur, exists, err := p.current(path)
	if err != nil {
		return err
	}
	switch {
	case want == nil && exists:
		return &ChangedError{Path: path, Detail: "it exists now"}
	case want != nil && !exists:
		return &ChangedError{Path: path, Detail: "it does not exist any more"}
	case want != nil && !bytes.Equal(cur, want):
		return &ChangedError{Path: path, Detail: "its content differs"}
	}
	return nil
}

// write adds o to the plan and notes what its path will hold.
func (p *writePlanner) write(o op) {
	p.plan = append(p.plan, o)
	if o.remove {
		p.state[o.path] = nil
		return
	}
	c := o.content
	p.state[o.path] = &c
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// readCurrent returns what the real path holds: its content, or exists
// false. No link is followed.
func readCurrent(path string) (content []byte, exists bool, err error) {
	return readReal(path)
}

// realOf is where a change of path lands: real when the change was
// decided on it, else path with its symlinks resolved now.
func realOf(path, real string) (string, error) {
	if real != "" {
		if !filepath.IsAbs(real) {
			return "", fmt.Errorf("%s: real path %q is not absolute", path, real)
		}
		return filepath.Clean(real), nil
	}
	r, err := policy.Resolve(filepath.Clean(path))
	if err != nil {
		return "", err
	}
	return r, nil
}

// named makes a ChangedError name the path as the change did.
func named(err error, shown string) error {
	var ce *ChangedError
	if errors.As(err, &ce) {
		ce.Path = shown
	}
	return err
}

// unwrapPath drops the temporary file's name from an error about it.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && strings.Contains(pe.Path, ".agent-ls-") {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// NotOnDisk returns the paths of cs whose file on disk does not hold the
// change's result (after a Move, the destination's): the new content is
// only in the editor's buffer, because the user had unsaved edits there.
// Commands see the saved version of these files.
func NotOnDisk(cs *ChangeSet) []string {
	var paths []string
	for _, c := range cs.Changes {
		path, real := c.Path, c.Real
		if c.Kind == Move {
			path, real = c.NewPath, c.NewReal
		}
		real, err := realOf(path, real)
		if err != nil {
			paths = append(paths, path)
			continue
		}
		cur, exists, err := readCurrent(real)
		switch {
		case err != nil:
			paths = append(paths, path)
		case c.Kind == Delete:
			if exists {
				paths = append(paths, path)
			}
		case !exists || !bytes.Equal(cur, nonNil(c.NewContent)):
			paths = append(paths, path)
		}
	}
	return paths
}
