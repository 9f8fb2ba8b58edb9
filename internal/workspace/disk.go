package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// ChangedError says a file no longer holds the content a change was
// computed from: someone changed it after it was read.
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
	return msg + "; nothing was changed: read it again and redo the change"
}

// rename is os.Rename; tests replace it to make a write fail part-way.
var rename = os.Rename

// WriteToDisk applies every change of cs to disk, all or nothing. Each
// file is replaced atomically (a temporary file in the same directory,
// renamed over it), keeping the mode of the file it replaces; new files
// get 0644, and their missing parent directories are created. A file is
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
	w := &Written{}
	for _, op := range plan {
		if err := w.do(op); err != nil {
			if rbErr := w.Rollback(); rbErr != nil {
				return nil, fmt.Errorf("%w; rolling back failed too, so files may be left changed: %v", err, rbErr)
			}
			return nil, fmt.Errorf("%w; nothing was changed", err)
		}
	}
	return w, nil
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
	var errs []error
	for i := len(w.steps) - 1; i >= 0; i-- {
		if err := undo(w.steps[i]); err != nil {
			errs = append(errs, err)
		}
	}
	w.steps = nil
	return errors.Join(errs...)
}

func undo(st step) error {
	switch st.kind {
	case stepMkdir:
		if err := os.Remove(st.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove directory %s: %w", st.path, err)
		}
		return nil
	case stepWrite:
		cur, exists, err := readCurrent(st.path)
		if err != nil {
			return err
		}
		if !exists || !bytes.Equal(cur, st.wrote) {
			return fmt.Errorf("%s was changed by someone else: not restored", st.path)
		}
		if !st.had {
			if err := os.Remove(st.path); err != nil {
				return fmt.Errorf("remove %s: %w", st.path, err)
			}
			return nil
		}
		return writeAtomic(st.path, st.old, st.mode)
	case stepRemove:
		if _, exists, err := readCurrent(st.path); err != nil {
			return err
		} else if exists {
			return fmt.Errorf("%s was created again by someone else: not restored", st.path)
		}
		return writeAtomic(st.path, st.old, st.mode)
	}
	return nil
}

// op is one file operation of a plan: write content to path (with mode),
// or remove path.
type op struct {
	path    string
	remove  bool
	content []byte
	mode    fs.FileMode // 0: keep the existing file's, else 0644
}

// planWrites checks every change against the disk, as it will be after
// the changes before it, and returns the file operations to carry out.
func planWrites(cs *ChangeSet) ([]op, error) {
	// state is the content a path will have after the changes planned so
	// far (nil value: removed).
	state := make(map[string]*[]byte)
	modes := make(map[string]fs.FileMode)
	current := func(path string) ([]byte, bool, error) {
		if c, ok := state[path]; ok {
			if c == nil {
				return nil, false, nil
			}
			return *c, true, nil
		}
		return readCurrent(path)
	}
	expect := func(path string, want []byte) error {
		cur, exists, err := current(path)
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
	set := func(path string, content []byte) {
		if content == nil {
			state[path] = nil
			return
		}
		c := content
		state[path] = &c
	}

	var plan []op
	for i, c := range cs.Changes {
		if !filepath.IsAbs(c.Path) || (c.Kind == Move && !filepath.IsAbs(c.NewPath)) {
			return nil, fmt.Errorf("change %d (%s %s): paths must be absolute", i+1, c.Kind, c.Path)
		}
		path := filepath.Clean(c.Path)
		switch c.Kind {
		case Add, Update:
			if c.Kind == Update && c.OldContent == nil {
				return nil, fmt.Errorf("update %s: no old content", path)
			}
			if err := expect(path, c.OldContent); err != nil {
				return nil, err
			}
			plan = append(plan, op{path: path, content: nonNil(c.NewContent)})
			set(path, nonNil(c.NewContent))
		case Delete:
			if c.OldContent == nil {
				return nil, fmt.Errorf("delete %s: no old content", path)
			}
			if err := expect(path, c.OldContent); err != nil {
				return nil, err
			}
			plan = append(plan, op{path: path, remove: true})
			set(path, nil)
		case Move:
			dest := filepath.Clean(c.NewPath)
			if c.OldContent == nil {
				return nil, fmt.Errorf("move %s: no old content", path)
			}
			if err := expect(path, c.OldContent); err != nil {
				return nil, err
			}
			if dest == path {
				plan = append(plan, op{path: path, content: nonNil(c.NewContent)})
				set(path, nonNil(c.NewContent))
				break
			}
			// The destination may exist: a move replaces it.
			if _, _, err := current(dest); err != nil {
				return nil, err
			}
			mode, ok := modes[path]
			if !ok {
				if fi, err := os.Stat(path); err == nil {
					mode = fi.Mode().Perm()
				}
			}
			modes[dest] = mode
			plan = append(plan, op{path: dest, content: nonNil(c.NewContent), mode: mode},
				op{path: path, remove: true})
			set(dest, nonNil(c.NewContent))
			set(path, nil)
		default:
			return nil, fmt.Errorf("change %d of %s: unknown kind %d", i+1, path, c.Kind)
		}
	}
	return plan, nil
}

func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// readCurrent returns what path holds: its content, or exists false.
func readCurrent(path string) (content []byte, exists bool, err error) {
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		return b, true, nil
	case errors.Is(err, fs.ErrNotExist):
		return nil, false, nil
	case errors.Is(err, syscall.ENOTDIR):
		// A parent is a file: the path cannot exist.
		return nil, false, nil
	}
	return nil, false, fmt.Errorf("read %s: %w", path, err)
}

// do carries out one operation and records how to undo it.
func (w *Written) do(o op) error {
	old, had, err := readCurrent(o.path)
	if err != nil {
		return err
	}
	var mode fs.FileMode = 0o644
	if had {
		fi, err := os.Stat(o.path)
		if err != nil {
			return err
		}
		mode = fi.Mode().Perm()
	}
	if o.remove {
		if err := os.Remove(o.path); err != nil {
			return fmt.Errorf("delete %s: %w", o.path, err)
		}
		w.steps = append(w.steps, step{kind: stepRemove, path: o.path, had: true, old: old, mode: mode})
		return nil
	}
	if err := w.mkdirs(filepath.Dir(o.path)); err != nil {
		return err
	}
	newMode := mode
	if o.mode != 0 {
		newMode = o.mode
	}
	if err := writeAtomic(o.path, o.content, newMode); err != nil {
		return err
	}
	w.steps = append(w.steps, step{kind: stepWrite, path: o.path, had: had, old: old, mode: mode, wrote: o.content})
	return nil
}

// mkdirs creates dir and its missing parents, recording each it creates.
func (w *Written) mkdirs(dir string) error {
	var missing []string
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err == nil {
			if !fi.IsDir() {
				return fmt.Errorf("create directory %s: %s is not a directory", dir, d)
			}
			break
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("create directory %s: %w", dir, err)
		}
		missing = append(missing, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	for _, d := range slices.Backward(missing) {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("create directory %s: %w", d, err)
		}
		w.steps = append(w.steps, step{kind: stepMkdir, path: d})
	}
	return nil
}

// writeAtomic replaces path with content: readers see the old file or the
// new one, never a part. A symbolic link is written through, not replaced.
func writeAtomic(path string, content []byte, mode fs.FileMode) error {
	if target, err := filepath.EvalSymlinks(path); err == nil {
		path = target
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".agent-ls-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
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
	if err == nil {
		err = rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, unwrapPath(err))
	}
	return nil
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
		path := c.Path
		if c.Kind == Move {
			path = c.NewPath
		}
		cur, exists, err := readCurrent(path)
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
