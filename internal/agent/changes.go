package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// File change statuses of the fileChange event.
const (
	ChangeApplied  = "applied"
	ChangeRejected = "rejected"
	ChangeFailed   = "failed"
)

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
	undone bool
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
		b.WriteString(unifiedDiff(cwd, p, tf.before[p], tf.after[p]))
	}
	return b.String()
}

// unifiedDiff renders one file's change with git-style names.
func unifiedDiff(cwd, path string, before, after fileState) string {
	name := relPath(cwd, path)
	from, to := "a/"+name, "b/"+name
	if !before.exists {
		from = "/dev/null"
	}
	if !after.exists {
		to = "/dev/null"
	}
	return udiff.Unified(from, to, string(before.content), string(after.content))
}

func relPath(cwd, path string) string {
	if rel, err := filepath.Rel(cwd, path); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return path
}

// DiffStat counts the added and removed lines of a unified diff.
func DiffStat(diff string) (add, del int) {
	for _, line := range strings.Split(diff, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			add++
		case strings.HasPrefix(line, "-"):
			del++
		}
	}
	return add, del
}

// turnChanger is the tools.Changer of one turn: it applies change sets
// through the frontend (or to disk), reports each as a fileChange event
// and records it for the turn's diff and undo.
type turnChanger struct{ t *turn }

func (c turnChanger) Apply(ctx context.Context, callID string, cs *workspace.ChangeSet) error {
	t := c.t
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
	status := ChangeApplied
	var rejected *workspace.RejectedError
	var unconfirmed *workspace.UnconfirmedError
	switch {
	case errors.As(err, &rejected):
		status = ChangeRejected
	case errors.As(err, &unconfirmed):
		// The editor said it applied the change: the user sees it there.
	case err != nil:
		status = ChangeFailed
	}
	ev := event.FileChange{CallID: callID, Status: status}
	var diff strings.Builder
	for _, fc := range cs.Changes {
		after := fileState{exists: fc.Kind != workspace.Delete && fc.Kind != workspace.Move, content: fc.NewContent}
		d := unifiedDiff(t.s.info.Cwd, fc.Path, befores[fc.Path], after)
		entry := event.FileChangeEntry{URI: string(uri.File(fc.Path)), Kind: fc.Kind.String()}
		if fc.Kind == workspace.Move {
			entry.NewURI = string(uri.File(fc.NewPath))
			moved := fileState{exists: true, content: fc.NewContent}
			d = unifiedDiff(t.s.info.Cwd, fc.NewPath, fileState{exists: true, content: fc.OldContent}, moved)
			if status == ChangeApplied {
				t.files.record(fc.NewPath, befores[fc.NewPath], moved)
			}
		}
		entry.Additions, entry.Deletions = DiffStat(d)
		ev.Changes = append(ev.Changes, entry)
		diff.WriteString(d)
		if status == ChangeApplied {
			t.files.record(fc.Path, befores[fc.Path], after)
		}
	}
	ev.Diff = diff.String()
	t.emit(ev)
	return err
}

// applyChanges applies cs through the frontend when it can (the editor),
// else to disk.
func (m *Manager) applyChanges(ctx context.Context, cs *workspace.ChangeSet) error {
	if ap, ok := m.opts.Frontend.(ChangeApplier); ok {
		return ap.ApplyChanges(ctx, cs)
	}
	return workspace.WriteToDisk(cs)
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
	running := s.running
	tf := s.turnFiles[turnID]
	s.mu.Unlock()
	if running != nil {
		return nil, fmt.Errorf("%w: wait for turn %s to end before undoing", ErrTurnRunning, running.id)
	}
	if tf == nil {
		return nil, fmt.Errorf("%w: turn %q of session %s changed no files", ErrNoTurn, turnID, sessionID)
	}
	tf.mu.Lock()
	defer tf.mu.Unlock()
	if tf.undone {
		return nil, fmt.Errorf("turn %s was already undone", turnID)
	}
	var changed []string
	cs := &workspace.ChangeSet{Label: "agent-ls: undo turn " + turnID}
	for _, p := range tf.order {
		before, after, now := tf.before[p], tf.after[p], s.currentState(p)
		if now.exists != after.exists || string(now.content) != string(after.content) {
			changed = append(changed, relPath(s.info.Cwd, p))
			continue
		}
		fc := workspace.FileChange{Path: p, OldContent: after.content, NewContent: before.content}
		switch {
		case before.exists && after.exists:
			fc.Kind = workspace.Update
		case before.exists:
			fc.Kind, fc.OldContent = workspace.Add, nil
		case after.exists:
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
	tf.undone = true
	paths := make([]string, 0, len(cs.Changes))
	for _, fc := range cs.Changes {
		paths = append(paths, fc.Path)
	}
	return paths, nil
}
