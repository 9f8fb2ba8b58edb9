package agent

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// changeKinds names each kind of workspace change on the wire.
var changeKinds = map[workspace.ChangeKind]event.ChangeKind{
	workspace.Add:    event.ChangeAdd,
	workspace.Update: event.ChangeUpdate,
	workspace.Delete: event.ChangeDelete,
	workspace.Move:   event.ChangeMove,
}

// fileState is one file's content at a moment; exists false means absent.
type fileState struct {
	exists  bool
	content []byte
}

// turnFiles remembers, for every file a turn changed, its state before the
// turn's first change and after its last: the turn's diff, and what undo
// restores.
type turnFiles struct {
	mu     sync.Mutex
	order  []string
	before map[string]fileState
	after  map[string]fileState
}

func (tf *turnFiles) record(path string, before, after fileState) {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.before == nil {
		tf.before, tf.after = make(map[string]fileState), make(map[string]fileState)
	}
	if _, seen := tf.before[path]; !seen {
		tf.before[path] = before
		tf.order = append(tf.order, path)
	}
	tf.after[path] = after
}

func (tf *turnFiles) empty() bool {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	return len(tf.order) == 0
}

// diff is the unified diff from before the turn to now, file by file.
func (tf *turnFiles) diff(cwd string) string {
	tf.mu.Lock()
	defer tf.mu.Unlock()
	var b strings.Builder
	for _, p := range tf.order {
		b.WriteString(fileDiff(p, tf.before[p], tf.after[p]).Diff(cwd))
	}
	return b.String()
}

// fileDiff is one file's change from before to after, as a change for the
// workspace's renderer.
func fileDiff(path string, before, after fileState) workspace.FileChange {
	fc := workspace.FileChange{Kind: workspace.Update, Path: path, OldContent: before.content, NewContent: after.content}
	switch {
	case !before.exists:
		fc.Kind, fc.OldContent = workspace.Add, nil
	case !after.exists:
		fc.Kind, fc.NewContent = workspace.Delete, nil
	}
	return fc
}

func relPath(cwd, path string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// turnChanger is the tools.Changer of one turn: it applies change sets
// through the frontend (or to disk), reports each as a fileChange event
// and records it for the turn's diff and undo.
type turnChanger struct{ t *turn }

// Apply applies cs and reports it. With a Reviewer, cs is first proposed
// to the user; only what the user accepts goes ahead (cs is reduced to
// it), and a review that did not simply accept everything ends in a
// *workspace.ReviewedError for the model.
func (c turnChanger) Apply(ctx context.Context, callID string, cs *workspace.ChangeSet) error {
	t := c.t
	var rv *reviewed
	if r := t.s.mgr.opts.Reviewer; r != nil && len(cs.Changes) > 0 {
		var err error
		rv, err = t.review(ctx, r, callID, cs)
		if err == nil && len(rv.accepted) == 0 {
			err = &workspace.ReviewedError{Report: rv.report}
		}
		if err != nil && ctx.Err() != nil {
			// Interrupted: the turn's end closes the proposal (an event
			// now could come after turnCompleted, which does not wait for
			// tools that are still running).
			return err
		}
		if err != nil {
			// The proposal ends: nothing of it was applied.
			ev := event.FileChange{CallID: callID, Status: event.ChangeRejected, Diff: cs.Diff(t.s.info.Cwd)}
			for _, fc := range cs.Changes {
				ev.Changes = append(ev.Changes, changeEntry(fc))
			}
			t.emit(ev)
			return err
		}
		cs.Changes = rv.accepted
	}
	// The state before, for paths this turn has not touched yet: a move's
	// destination may exist already.
	befores := make(map[string]fileState)
	for _, fc := range cs.Changes {
		befores[fc.Path] = fileState{exists: fc.OldContent != nil, content: fc.OldContent}
		if fc.NewPath != "" {
			befores[fc.NewPath] = t.s.currentState(fc.NewPath)
		}
	}
	err := t.s.mgr.applyChanges(ctx, cs)
	status := event.ChangeApplied
	var rejected *workspace.RejectedError
	var unconfirmed *workspace.UnconfirmedError
	switch {
	case errors.As(err, &rejected):
		status = event.ChangeRejected
	case errors.As(err, &unconfirmed):
		// The editor said it applied the change: the user sees it there.
	case err != nil:
		status = event.ChangeFailed
	}
	ev := event.FileChange{CallID: callID, Status: status}
	var diff strings.Builder
	for _, fc := range cs.Changes {
		after := fileState{exists: fc.Kind != workspace.Delete && fc.Kind != workspace.Move, content: fc.NewContent}
		if fc.Kind == workspace.Move && status == event.ChangeApplied {
			t.files.record(fc.NewPath, befores[fc.NewPath], fileState{exists: true, content: fc.NewContent})
			t.checkpoint(fc.NewPath, befores[fc.NewPath], fileState{exists: true, content: fc.NewContent})
		}
		ev.Changes = append(ev.Changes, changeEntry(fc))
		diff.WriteString(fc.Diff(t.s.info.Cwd))
		if status == event.ChangeApplied {
			t.files.record(fc.Path, befores[fc.Path], after)
			t.checkpoint(fc.Path, befores[fc.Path], after)
		}
	}
	ev.Diff = diff.String()
	t.emit(ev)
	if err == nil && rv != nil && rv.report != "" {
		return &workspace.ReviewedError{Applied: true, Report: rv.report}
	}
	return err
}

// applyChanges applies cs through the frontend when it does so (the
// editor), else to disk.
func (m *Manager) applyChanges(ctx context.Context, cs *workspace.ChangeSet) error {
	// The files added, deleted or moved change what @-mentions list.
	defer m.changedFiles(cs)
	applied, err := m.opts.Frontend.ApplyChanges(ctx, cs)
	if applied || err != nil {
		return err
	}
	return workspace.WriteToDisk(cs)
}

// changedFiles tells the mention lists of the files cs adds, deletes or
// moves.
func (m *Manager) changedFiles(cs *workspace.ChangeSet) {
	var paths []string
	for _, c := range cs.Changes {
		if c.Kind != workspace.Update {
			paths = append(paths, c.Path, c.NewPath)
		}
	}
	if paths = slices.DeleteFunc(paths, func(p string) bool { return p == "" }); len(paths) > 0 {
		m.mentions.Changed(paths...)
	}
}

// currentState reads a file as the user sees it.
func (s *session) currentState(path string) fileState {
	data, err := s.mgr.opts.Files.ReadFile(path)
	if err != nil {
		return fileState{}
	}
	if data == nil {
		data = []byte{}
	}
	return fileState{exists: true, content: data}
}

// UndoTurn restores every file the turn changed to its content before the
// turn, through the same path as the turn's own changes (so the editor can
// undo the undo). It refuses, naming the files, when any of them changed
// since the turn, and returns the restored paths.
func (m *Manager) UndoTurn(ctx context.Context, sessionID, turnID string) ([]string, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	running := s.busy()
	s.mu.Unlock()
	if running != nil {
		return nil, fmt.Errorf("%w: wait for turn %s to end before undoing", ErrTurnRunning, running.id)
	}
	ut := s.undo.get(turnID)
	if ut == nil {
		return nil, fmt.Errorf("%w: turn %q of session %s changed no files, or is older than the last %d turns that did", ErrNoTurn, turnID, sessionID, m.opts.UndoTurns)
	}
	ut.mu.Lock()
	defer ut.mu.Unlock()
	if ut.undone {
		return nil, fmt.Errorf("turn %s was already undone", turnID)
	}
	var changed []string
	cs := &workspace.ChangeSet{Label: "agent-ls: undo turn " + turnID}
	for _, f := range ut.files {
		now := s.currentState(f.Path)
		if now.exists != f.AfterExists || sha256.Sum256(now.content) != f.AfterSum {
			changed = append(changed, relPath(s.info.Cwd, f.Path))
			continue
		}
		before, err := ut.before(f)
		if err != nil {
			return nil, fmt.Errorf("undo turn %s: %w", turnID, err)
		}
		fc := workspace.FileChange{Path: f.Path, OldContent: now.content, NewContent: before}
		switch {
		case f.BeforeExists && f.AfterExists:
			fc.Kind = workspace.Update
		case f.BeforeExists:
			fc.Kind, fc.OldContent = workspace.Add, nil
		case f.AfterExists:
			fc.Kind, fc.NewContent = workspace.Delete, nil
		default:
			continue
		}
		cs.Changes = append(cs.Changes, fc)
	}
	if len(changed) > 0 {
		return nil, fmt.Errorf("cannot undo turn %s: these files changed since it ended: %s", turnID, strings.Join(changed, ", "))
	}
	if err := m.applyChanges(ctx, cs); err != nil {
		return nil, fmt.Errorf("undo turn %s: %w", turnID, err)
	}
	ut.undone = true
	s.obs.Undone(turnID)
	paths := make([]string, 0, len(cs.Changes))
	for _, fc := range cs.Changes {
		paths = append(paths, fc.Path)
	}
	return paths, nil
}
