package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/agent-ls/agent-ls/internal/checkpoint"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// ErrRewindDeclined says the user kept the session's command sessions
// running, so the rewind did not happen.
var ErrRewindDeclined = errors.New("rewind cancelled: the command sessions were kept running")

// RewindIssue is a file a rewind left as it is, and why.
type RewindIssue struct {
	Path   string
	Reason string
}

// RewindResult is what a rewind did.
type RewindResult struct {
	// Rewound are the turns that left the conversation, in order.
	Rewound []string
	// Files were taken back to the checkpoint.
	Files []string
	// Conflicts are files the user changed where the agent did: left as
	// they are. NotRestored are changes no checkpoint kept.
	Conflicts   []RewindIssue
	NotRestored []RewindIssue
	// TurnID is the turn the rewind started with its prompt.
	TurnID string
}

// Rewind takes the session back to just before turn turnID: that turn and
// every later one leave the history the model sees (the record keeps
// them, marked rewound), and the files they changed, through patches or
// commands, go back to the checkpoint by a three-way merge that keeps the
// user's own later edits. A file where the user's edit overlaps the
// agent's change is a conflict and stays as it is. turnID "" is the
// last turn; a number N is the session's N-th turn. Running command
// sessions are killed first, after asking. With prompt, a new turn
// starts with it once the rewind is done.
func (m *Manager) Rewind(ctx context.Context, sessionID, turnID, prompt string) (RewindResult, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return RewindResult{}, err
	}
	s.mu.Lock()
	running := s.busy()
	s.mu.Unlock()
	if running != nil {
		return RewindResult{}, fmt.Errorf("%w: wait for turn %s to end (or stop it) before rewinding", ErrTurnRunning, running.id)
	}
	c := s.checkpoints
	turns, err := c.from(sessionID, turnID)
	if err != nil {
		return RewindResult{}, err
	}
	first := turns[0]
	if first.HistoryStart < 0 || first.gen != s.history.generation() {
		return RewindResult{}, fmt.Errorf("cannot rewind turn %s: the conversation was compacted since it began; rewind a later turn", first.TurnID)
	}
	if err := s.stopTerminalsFor(ctx, first.TurnID); err != nil {
		return RewindResult{}, err
	}
	res, cs := s.planRewind(turns)
	if len(cs.Changes) > 0 {
		if err := m.applyChanges(ctx, cs); err != nil {
			return RewindResult{}, fmt.Errorf("rewind to before turn %s: %w", first.TurnID, err)
		}
	}
	for _, fc := range cs.Changes {
		res.Files = append(res.Files, fc.Path)
	}
	s.history.truncate(first.HistoryStart, first.gen)
	s.mu.Lock()
	s.changed = true // the model is told the settings again
	s.reported.tokens, s.reported.items = 0, 0
	s.mu.Unlock()
	c.mu.Lock()
	for _, cp := range turns {
		cp.Rewound = true
		res.Rewound = append(res.Rewound, cp.TurnID)
	}
	c.mu.Unlock()
	s.markUndone(res.Rewound)
	s.emit("", event.Rewound{TurnIDs: res.Rewound})
	s.obs.Rewound(res.Rewound, first.HistoryStart)
	m.log.Info("rewound", "session", sessionID, "turns", res.Rewound, "files", len(res.Files), "conflicts", len(res.Conflicts))
	if prompt != "" {
		t, err := s.startTurn(TurnInput{Prompt: prompt}, false)
		if err != nil {
			return res, fmt.Errorf("rewound; the new turn did not start: %w", err)
		}
		res.TurnID = t.ID()
	}
	return res, nil
}

// from returns the checkpoints of turnID and every later turn not yet
// rewound; turnID "" is the last turn, a number the session's N-th.
func (c *checkpoints) from(sessionID, turnID string) ([]*TurnCheckpoint, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n, err := strconv.Atoi(turnID); err == nil {
		turnID = sessionID + "-t" + strconv.Itoa(n)
	}
	start := -1
	for i := len(c.turns) - 1; i >= 0; i-- {
		cp := c.turns[i]
		if cp.Rewound {
			if cp.TurnID == turnID {
				return nil, fmt.Errorf("%w: turn %s was rewound already", ErrNoTurn, turnID)
			}
			continue
		}
		if turnID == "" || cp.TurnID == turnID {
			start = i
			break
		}
	}
	if start < 0 {
		if turnID == "" {
			return nil, fmt.Errorf("%w: session %s has no turn to rewind", ErrNoTurn, sessionID)
		}
		return nil, fmt.Errorf("%w: session %s has no turn %q to rewind", ErrNoTurn, sessionID, turnID)
	}
	var out []*TurnCheckpoint
	for _, cp := range c.turns[start:] {
		if !cp.Rewound {
			out = append(out, cp)
		}
	}
	return out, nil
}

// stopTerminalsFor kills the session's running command sessions, after
// asking the user: they may go on writing files.
func (s *session) stopTerminalsFor(ctx context.Context, turnID string) error {
	running := s.terminals.Running()
	if len(running) == 0 {
		return nil
	}
	ids := running
	req := &ApprovalRequest{SessionID: s.info.SessionID, TurnID: turnID, ApprovalID: "rewind-" + turnID, Kind: ApprovalTool, Tool: "rewind",
		Reason:  fmt.Sprintf("Rewinding kills the running command sessions %s first: they could go on changing files.", tools.IDList(ids)),
		Options: []string{AllowOnce, RejectOnce}}
	d, err := s.mgr.opts.Frontend.RequestApproval(ctx, req)
	if err != nil || (d != AllowOnce && d != AllowAlways) {
		return ErrRewindDeclined
	}
	_, err = s.mgr.stopTerminals(s.info.SessionID, killedByUser, "The user rewound the conversation; agent-ls stopped command sessions %s.")
	return err
}

// markUndone keeps agent/undoTurn from undoing a rewound turn again.
func (s *session) markUndone(turnIDs []string) {
	for _, id := range turnIDs {
		if ut := s.undo.get(id); ut != nil {
			ut.mu.Lock()
			was := ut.undone
			ut.undone = true
			ut.mu.Unlock()
			if !was {
				s.obs.Undone(id)
			}
		}
	}
}

// planRewind computes, file by file, the content that takes back turns'
// changes (latest first) from what each file holds now.
func (s *session) planRewind(turns []*TurnCheckpoint) (RewindResult, *workspace.ChangeSet) {
	c := s.checkpoints
	c.mu.Lock()
	var paths []string
	byPath := map[string][]*TurnCheckpoint{}
	var res RewindResult
	for _, cp := range turns {
		for _, f := range cp.Files {
			if byPath[f.Path] == nil {
				paths = append(paths, f.Path)
			}
			byPath[f.Path] = append(byPath[f.Path], cp)
		}
		for _, d := range cp.Skipped {
			res.NotRestored = append(res.NotRestored, RewindIssue{Path: d, Reason: "left out of checkpoints (ignored or node_modules); a command of turn " + cp.TurnID + " changed something in it"})
		}
	}
	c.mu.Unlock()
	cs := &workspace.ChangeSet{Label: "agent-ls: rewind to before turn " + turns[0].TurnID}
	s.mu.Lock()
	boundary := s.boundary
	s.mu.Unlock()
	for _, p := range paths {
		// A command may have put a link where a file or folder was: a
		// rewind writes only where the path still leads into the
		// workspace, never through a link out of it or into a
		// protected name.
		if why := rewindRefused(boundary, p); why != "" {
			res.NotRestored = append(res.NotRestored, RewindIssue{Path: p, Reason: why})
			continue
		}
		if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
			// What the checkpoint holds as a file is a folder now: a
			// rewind neither empties it nor writes a file over it.
			res.Conflicts = append(res.Conflicts, RewindIssue{Path: p, Reason: "it is a folder now: left as it is"})
			continue
		}
		now := s.currentState(p)
		state, issue, conflict := now, "", false
		cps := byPath[p]
		for k := len(cps) - 1; k >= 0 && issue == ""; k-- {
			state, issue, conflict = c.revertFile(cps[k], p, state)
		}
		switch {
		case conflict:
			res.Conflicts = append(res.Conflicts, RewindIssue{Path: p, Reason: issue})
		case issue != "":
			res.NotRestored = append(res.NotRestored, RewindIssue{Path: p, Reason: issue})
		case state.exists == now.exists && bytes.Equal(state.content, now.content):
		default:
			cs.Changes = append(cs.Changes, rewindChange(p, now, state))
		}
	}
	return res, cs
}

// rewindRefused says why a rewind must not write path, or "": its real
// target (links resolved) must lie in the workspace folders and not at or
// below a protected name.
func rewindRefused(b *policy.Boundary, path string) string {
	if !b.Contains(path) {
		return "it now leads outside the workspace (through a symbolic link): left as it is"
	}
	if prot := b.ProtectedAt(path); prot != "" {
		return "it now lies inside " + prot + ", which is protected: left as it is"
	}
	return ""
}

// revertFile takes one turn's change of path back from state. It reports
// why it could not (conflict: because of the user's edits).
func (c *checkpoints) revertFile(cp *TurnCheckpoint, path string, state fileState) (out fileState, issue string, conflict bool) {
	c.mu.Lock()
	var f CheckpointFile
	for _, g := range cp.Files {
		if g.Path == path {
			f = g
		}
	}
	dropped := cp.Dropped
	c.mu.Unlock()
	if dropped {
		return state, "the checkpoint of turn " + cp.TurnID + " was dropped to stay within checkpoint_max_bytes", false
	}
	before, err := c.load(f.Before)
	if err != nil {
		return state, err.Error(), false
	}
	after, err := c.load(f.After)
	if err != nil {
		return state, err.Error(), false
	}
	switch {
	case !after.exists && !before.exists:
		return state, "", false
	case !after.exists:
		if state.exists {
			return state, "deleted by turn " + cp.TurnID + " and created again since", true
		}
		return before, "", false
	case !state.exists:
		if !before.exists {
			return state, "", false // the agent's file is gone already
		}
		return state, "deleted since turn " + cp.TurnID + " changed it", true
	case !before.exists:
		if bytes.Equal(state.content, after.content) {
			return fileState{}, "", false
		}
		return state, "created by turn " + cp.TurnID + " and changed since: it is not deleted", true
	}
	merged, ok := checkpoint.Revert(before.content, after.content, state.content)
	if !ok {
		return state, "changed since turn " + cp.TurnID + " where that turn changed it", true
	}
	return fileState{exists: true, content: merged}, "", false
}

// load reads a FileVersion's content.
func (c *checkpoints) load(v FileVersion) (fileState, error) {
	if !v.Exists {
		return fileState{}, nil
	}
	if v.Sum == "" {
		reason := v.Lost
		if reason == "" {
			reason = "its content was not kept"
		}
		return fileState{}, errors.New(reason)
	}
	data, err := c.store.Get(checkpoint.Sum(v.Sum))
	if err != nil {
		return fileState{}, err
	}
	return fileState{exists: true, content: data}, nil
}

// rewindChange is the change from now to want.
func rewindChange(path string, now, want fileState) workspace.FileChange {
	fc := workspace.FileChange{Kind: workspace.Update, Path: path, OldContent: now.content, NewContent: want.content}
	switch {
	case !now.exists:
		fc.Kind, fc.OldContent = workspace.Add, nil
	case !want.exists:
		fc.Kind, fc.NewContent = workspace.Delete, nil
	}
	if fc.NewContent == nil && want.exists {
		fc.NewContent = []byte{}
	}
	return fc
}

// Checkpoints returns the session's turn checkpoints, oldest first.
func (m *Manager) Checkpoints(sessionID string) ([]TurnCheckpoint, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return nil, err
	}
	c := s.checkpoints
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]TurnCheckpoint, 0, len(c.turns))
	for _, cp := range c.turns {
		out = append(out, *cp)
	}
	return out, nil
}
