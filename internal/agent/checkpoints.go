package agent

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/agent-ls/agent-ls/internal/checkpoint"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// DefaultCheckpointMaxBytes is how much of the workspace's former
// contents a session keeps for rewinds (config checkpoint_max_bytes).
const DefaultCheckpointMaxBytes = 1 << 30

// FileVersion is one file at a checkpoint: whether it existed, and the
// name of its content in the session's checkpoint store ("" with Lost
// saying why when the content was not kept).
type FileVersion struct {
	Exists bool   `json:"exists"`
	Sum    string `json:"sum,omitempty"`
	Lost   string `json:"lost,omitempty"`
}

// CheckpointFile is one file a turn changed, by a patch or a command:
// as it was before the turn's first change of it and after its last.
type CheckpointFile struct {
	Path   string      `json:"path"`
	Before FileVersion `json:"before"`
	After  FileVersion `json:"after"`
}

// TurnCheckpoint is what a rewind of one turn needs: where the turn
// began in the history and the files it changed.
type TurnCheckpoint struct {
	TurnID string `json:"turn"`
	// HistoryStart is the number of history items before the turn's
	// own; -1 when a compaction since replaced them.
	HistoryStart int              `json:"start"`
	Files        []CheckpointFile `json:"files,omitempty"`
	// Skipped are the folders left out of checkpoints (ignored ones,
	// node_modules) in which a command of the turn added, removed or
	// renamed something: a rewind cannot take that back.
	Skipped []string `json:"skipped,omitempty"`
	// Dropped: the contents were pruned to keep the session within its
	// checkpoint budget.
	Dropped bool `json:"dropped,omitempty"`
	// Rewound: the turn left the conversation.
	Rewound bool `json:"rewound,omitempty"`
	// gen is the history generation HistoryStart counts in.
	gen int
}

// checkpoints are a session's turn checkpoints, oldest first, and the
// store and tracker behind them.
type checkpoints struct {
	mu      sync.Mutex
	turns   []*TurnCheckpoint
	store   *checkpoint.Store
	tracker *checkpoint.Tracker
	// temporary: the store belongs to this process alone (no record is
	// kept) and goes with the session.
	temporary bool
	max       int64
}

// newCheckpoints opens the session's checkpoint store: in the state
// folder beside its record (Options.CheckpointDir), else a temporary one.
// Its snapshots cover folders: the session's cwd and workspace folders.
func (m *Manager) newCheckpoints(sessionID string, folders []string) *checkpoints {
	c := &checkpoints{max: m.opts.CheckpointMaxBytes}
	if c.max <= 0 {
		c.max = DefaultCheckpointMaxBytes
	}
	dir := ""
	if m.opts.CheckpointDir != nil {
		dir = m.opts.CheckpointDir(sessionID)
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "agent-ls-checkpoints-*")
		if err != nil {
			m.log.Warn("no checkpoint store: rewinds cannot take back what commands change", "err", err)
		}
		dir, c.temporary = tmp, true
	}
	c.store = checkpoint.Open(dir)
	opts := checkpoint.TrackerOptions{MaxBytes: c.max}
	if !c.temporary {
		opts.StateDir, opts.Exclude = stateDirs(dir)
	}
	c.tracker = checkpoint.NewTrackerWith(c.store, folders, opts)
	return c
}

// stateDirs returns, for a session's store dir, the folder of the
// sessions (where a snapshot names its store for the next session of
// the same folders) and the state folders around it that snapshots
// leave out: agent-ls's own (its tokens, journals and conversations)
// when the sessions lie in $XDG_STATE_HOME/agent-ls/sessions.
func stateDirs(dir string) (sessions string, exclude []string) {
	sessions = filepath.Dir(dir)
	if state := filepath.Dir(sessions); filepath.Base(state) == "agent-ls" {
		exclude = append(exclude, state)
	}
	return sessions, exclude
}

func (c *checkpoints) close() {
	if c.temporary && c.store.Dir() != "" {
		c.store.Remove()
		return
	}
	// The next session of the same folders links what this one kept.
	c.tracker.Close()
}

// begin starts the checkpoint of a turn whose items begin at start.
func (c *checkpoints) begin(turnID string, start, gen int) *TurnCheckpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	cp := &TurnCheckpoint{TurnID: turnID, HistoryStart: start, gen: gen}
	c.turns = append(c.turns, cp)
	// The first snapshot copies the workspace's kept files: it runs
	// while the model thinks, not when the first command waits for it.
	go c.tracker.Warm(context.Background())
	return cp
}

// version keeps content in the store as a FileVersion.
func (c *checkpoints) version(st fileState) FileVersion {
	if !st.exists {
		return FileVersion{}
	}
	sum, err := c.store.Put(st.content)
	if err != nil {
		return FileVersion{Exists: true, Lost: err.Error()}
	}
	return FileVersion{Exists: true, Sum: string(sum)}
}

// record notes that the turn of cp changed path from before to after:
// the first before and the last after count.
func (c *checkpoints) record(cp *TurnCheckpoint, path string, before, after FileVersion) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range cp.Files {
		if cp.Files[i].Path == path {
			cp.Files[i].After = after
			return
		}
	}
	cp.Files = append(cp.Files, CheckpointFile{Path: path, Before: before, After: after})
}

// entryVersion is a snapshot entry as a FileVersion.
func entryVersion(exists bool, e checkpoint.Entry) FileVersion {
	if !exists {
		return FileVersion{}
	}
	return FileVersion{Exists: true, Sum: string(e.Sum), Lost: e.Lost}
}

// commandHook snapshots the workspace around every command the turn
// runs and records what the command changed in the turn's checkpoint.
func (t *turn) commandHook() tools.Hook {
	var mu sync.Mutex
	before := map[string]checkpoint.Snapshot{}
	c := t.s.checkpoints
	return tools.Hook{Name: "checkpoint",
		Before: func(ctx context.Context, _ *tools.Env, h tools.Handler, call *tools.Call) tools.Decision {
			if h.Kind() == event.KindExecute && t.cp != nil {
				snap := c.tracker.Snapshot(ctx)
				mu.Lock()
				before[call.CallID] = snap
				mu.Unlock()
			}
			return tools.Decision{Allowed: true}
		},
		After: func(ctx context.Context, _ *tools.Env, _ tools.Handler, call *tools.Call, _ tools.Result) {
			mu.Lock()
			snap, ok := before[call.CallID]
			delete(before, call.CallID)
			mu.Unlock()
			if !ok {
				return
			}
			ctx = context.WithoutCancel(ctx)
			changes, skipped := checkpoint.Diff(snap, c.tracker.Snapshot(ctx))
			c.tracker.Keep(ctx, changes)
			for _, ch := range changes {
				c.record(t.cp, ch.Path, entryVersion(ch.Existed, ch.Before), entryVersion(ch.Left, ch.After))
			}
			c.mu.Lock()
			for _, d := range skipped {
				if !slices.Contains(t.cp.Skipped, d) {
					t.cp.Skipped = append(t.cp.Skipped, d)
				}
			}
			c.mu.Unlock()
		}}
}

// keepWithin drops the oldest turns' contents while the store holds more
// than the budget; the tracker's latest snapshot stays (it is what the
// next command is compared with). It returns the checkpoints it dropped.
func (c *checkpoints) keepWithin(log *slog.Logger) []TurnCheckpoint {
	if c.store.Size() <= c.max {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	var dropped []TurnCheckpoint
	for _, cp := range c.turns {
		if c.store.Size() <= c.max {
			break
		}
		if cp.Dropped || len(cp.Files) == 0 {
			continue
		}
		cp.Dropped = true
		dropped = append(dropped, *cp)
		c.prune()
	}
	if len(dropped) > 0 {
		log.Info("checkpoints dropped to stay within checkpoint_max_bytes", "turns", len(dropped), "bytes", c.store.Size())
	}
	return dropped
}

// prune removes the contents no kept checkpoint names (c.mu held).
func (c *checkpoints) prune() {
	keep := map[checkpoint.Sum]bool{}
	for _, cp := range c.turns {
		if cp.Dropped {
			continue
		}
		for _, f := range cp.Files {
			keep[checkpoint.Sum(f.Before.Sum)] = true
			keep[checkpoint.Sum(f.After.Sum)] = true
		}
	}
	for _, e := range c.tracker.Last() {
		keep[e.Sum] = true
	}
	c.store.Prune(func(s checkpoint.Sum) bool { return keep[s] })
}

// restore brings back the checkpoints of a session's record.
func (c *checkpoints) restore(cps []TurnCheckpoint, gen int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cp := range cps {
		cp.gen = gen
		c.turns = append(c.turns, &cp)
	}
}

// copy returns cp as it is now (c.mu guards its files).
func (c *checkpoints) copy(cp *TurnCheckpoint) TurnCheckpoint {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := *cp
	out.Files, out.Skipped = slices.Clone(cp.Files), slices.Clone(cp.Skipped)
	return out
}

// checkpoint records a patch's change of path in the turn's checkpoint.
func (t *turn) checkpoint(path string, before, after fileState) {
	if t.cp == nil {
		return
	}
	c := t.s.checkpoints
	c.mu.Lock()
	seen := slices.ContainsFunc(t.cp.Files, func(f CheckpointFile) bool { return f.Path == path })
	c.mu.Unlock()
	var b FileVersion
	if !seen {
		b = c.version(before)
	}
	c.record(t.cp, path, b, c.version(after))
}
