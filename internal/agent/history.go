package agent

import (
	"errors"
	"slices"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// History is a session's conversation as the model sees it. Every item
// enters through Append, the one place where a record of the session (a
// transcript, persistence) can observe it; compaction swaps the whole
// list through Replace. Safe for concurrent use; the running turn is its
// only writer.
type History struct {
	mu     sync.Mutex
	items  []model.Item
	primed bool // starts with the AGENTS.md chain and the environment
	// gen counts the replacements (compactions): a position in the
	// items holds only within one generation.
	gen int
	// observe, when set, sees every item appended, in order;
	// observeCompact sees the items a compaction put in place of all.
	observe        func(model.Item)
	observeCompact func([]model.Item)
}

// Append adds items at the end.
func (h *History) Append(items ...model.Item) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.items = append(h.items, items...)
	if h.observe != nil {
		for _, it := range items {
			h.observe(it)
		}
	}
}

// Items returns the items as they are now. The slice is the caller's;
// the items' own fields are shared and must not be changed.
func (h *History) Items() []model.Item {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clip(h.items)
}

// Len is the number of items.
func (h *History) Len() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.items)
}

// Replace swaps the whole conversation, as a compaction does: the new
// items are what the model sees from now on, and an observer is told of
// the replacement as one (Restore replaces before any observer is set).
func (h *History) Replace(items []model.Item) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.items = slices.Clone(items)
	h.gen++
	if h.observeCompact != nil {
		h.observeCompact(h.items)
	}
}

// adopt starts the history of a restored session with items, which it
// takes over (a long session's are megabytes, not copied again). No
// observer is set yet.
func (h *History) adopt(items []model.Item) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.items = slices.Clip(items)
	h.gen++
}

// generation is the number of replacements so far.
func (h *History) generation() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.gen
}

// truncate drops the items from n on, if the history is still of
// generation gen, and reports whether it did.
func (h *History) truncate(n, gen int) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.gen != gen || n < 0 || n > len(h.items) {
		return false
	}
	h.items = slices.Clip(h.items[:n])
	return true
}

// prime adds the session's context items once, before the first prompt,
// and reports whether it did now.
func (h *History) prime(items func() []model.Item) bool {
	h.mu.Lock()
	primed := h.primed
	h.primed = true
	h.mu.Unlock()
	if !primed {
		h.Append(items()...)
	}
	return !primed
}

// SessionRecord is what a session needs to continue where it stopped:
// its history and the counters its ids and event numbers come from.
type SessionRecord struct {
	Info    SessionInfo
	History []model.Item
	// Turns is how many turns the session has started (turn ids go on
	// from there); Seq the last event sequence number it sent.
	Turns int
	Seq   int64
	// Undo is the undo data of the turns that changed files, oldest
	// first; Approvals the user's "always" answers, in order.
	Undo      []UndoRecord
	Approvals []ApprovalRule
	// Checkpoints are the turns' checkpoints, oldest first, rewound
	// ones marked (Observer.Checkpoint, Observer.Rewound).
	Checkpoints []TurnCheckpoint
	// Usage is the session's token use so far.
	Usage event.UsageTotal
	// Queue is the prompts that wait, first to run first; restored, the
	// queue is paused.
	Queue []event.QueuedPrompt
	// Queued is the editor context and images of the queued prompts that
	// carry any, by turn id (Observer.Queued).
	Queued map[string]TurnInput
	// Planned: a turn in plan mode completed since the session's plan
	// mode began, so its plan may be approved (Info.Mode is the mode).
	Planned bool
}

// Record returns the session's record as it is now.
func (m *Manager) Record(sessionID string) (SessionRecord, error) {
	s, err := m.session(sessionID)
	if err != nil {
		return SessionRecord{}, err
	}
	s.mu.Lock()
	turns, info, usage, queue, planned := s.turns, s.info, s.usage, s.queue.snapshot(), s.planned
	queued := s.queue.carried()
	info.Mode = s.mode()
	s.mu.Unlock()
	s.emitMu.Lock()
	seq := s.seq
	s.emitMu.Unlock()
	return SessionRecord{Info: info, History: s.history.Items(), Turns: turns, Seq: seq, Usage: usage, Queue: queue, Queued: queued, Planned: planned}, nil
}

// unanswered returns aborted outputs for the calls of a history that have
// none (agent-ls stopped while they ran), so the next request is one the
// model takes.
func unanswered(items []model.Item) []model.Item {
	answered := make(map[string]bool)
	for _, it := range items {
		if it.Type == model.ItemFunctionCallOutput || it.Type == model.ItemCustomToolCallOutput {
			answered[it.CallID] = true
		}
	}
	var out []model.Item
	for _, it := range items {
		if (it.Type == model.ItemFunctionCall || it.Type == model.ItemCustomToolCall) && !answered[it.CallID] {
			out = append(out, outputItem(callOf(it), tools.Output{Text: tools.AbortedOutput, Failed: true}))
		}
	}
	return out
}

var (
	errRecordWithoutID = errors.New("agent: the session record has no id")
	errSessionExists   = errors.New("agent: a session with that id exists already")
)

// Restore brings back a session from its record, under its own id, with
// its history and counters (the next turn id and event seq continue the
// record's), its undo data and its "always" answers. Its observer
// (Options.Observe) is asked for with restored true and sees only what
// happens from now on. The session takes rec.History over: the caller
// does not change its items afterwards.
func (m *Manager) Restore(rec SessionRecord) (SessionInfo, error) {
	if rec.Info.SessionID == "" {
		return SessionInfo{}, errRecordWithoutID
	}
	if _, err := m.session(rec.Info.SessionID); err == nil {
		return SessionInfo{}, errSessionExists
	}
	mode, err := ParseMode(string(rec.Info.Mode))
	if err != nil {
		mode = ModeDefault // a later agent-ls's mode: this one has none such
	}
	s, err := m.newSession(rec.Info.SessionID, SessionOptions{Cwd: rec.Info.Cwd, Model: rec.Info.Model,
		ApprovalPolicy: rec.Info.ApprovalPolicy, SandboxMode: rec.Info.SandboxMode, Mode: mode, Network: restoredNetwork(rec.Info.NetworkChoice)})
	if err != nil {
		return SessionInfo{}, err
	}
	s.history.adopt(rec.History)
	s.history.primed = len(rec.History) > 0
	s.turns, s.seq, s.usage = rec.Turns, rec.Seq, rec.Usage
	for _, u := range rec.Undo {
		s.undo.restore(u)
	}
	s.checkpoints.restore(rec.Checkpoints, s.history.generation())
	for _, r := range rec.Approvals {
		s.approvals.restore(r)
	}
	s.restoreQueue(rec.Queue, rec.Queued)
	s.planned = rec.Planned && s.mode() == ModePlan
	m.observe(s, true)
	if len(s.queue.items) > 0 {
		s.emitQueue("") // the client learns that the queue waits
	}
	// The answers to calls a stop cut off go into the record too.
	if missing := unanswered(rec.History); len(missing) > 0 {
		s.history.Append(missing...)
	}
	return s.info, m.add(s)
}

// restoredNetwork is the network a restored session chose; a value
// this agent-ls does not know (a later one's) is taken as the narrowest,
// never as none.
func restoredNetwork(m policy.NetworkMode) policy.NetworkMode {
	if _, err := policy.ParseNetworkMode(string(m)); err != nil {
		return policy.NetworkOff
	}
	return m
}
