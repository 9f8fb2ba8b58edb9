package agent

import (
	"crypto/sha256"
	"io"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
)

// Observer is told, as it happens, of everything a session's record
// keeps: what enters its history, the events it sends, the undo data of
// its turns and the "always" answers of its user. A store that keeps
// sessions across restarts implements it (package session). Its methods
// are called from the session's turn, in order, and must not block for
// long; a record that cannot be written is the observer's to report.
type Observer interface {
	// Item: it entered the history through History.Append.
	Item(it model.Item)
	// Event: the session sends ev; called before the frontend gets it,
	// so a client never sees an event its record lacks.
	Event(ev event.Event)
	// UndoKept: a turn that changed files ended; each file's content
	// before the turn is in contents at its BeforeOffset, and contents is
	// only valid during the call.
	UndoKept(turnID string, files []UndoFile, contents io.ReaderAt)
	// Undone: the turn's changes were undone.
	Undone(turnID string)
	// Checkpoint: a turn began (cp has no files yet) or ended, or its
	// checkpoint was dropped; the last one told of a turn counts.
	Checkpoint(cp TurnCheckpoint)
	// Rewound: turnIDs left the conversation, whose history now keeps
	// its first keep items.
	Rewound(turnIDs []string, keep int)
	// Remembered: the user answered "always".
	Remembered(rule ApprovalRule)
	// Queued: a prompt with editor context or images (in, without its
	// text, which queueChanged carries) waits in the queue as turnID, so
	// that a restart keeps what it carries.
	Queued(turnID string, in TurnInput)
	// Compacted: a compaction replaced the whole history by items.
	Compacted(items []model.Item)
	// Settings: the session runs with new settings from its next turn on
	// (the defaults changed: its model, provider or policies).
	Settings(info SessionInfo)
}

// UndoFile is one file a turn changed, as undo needs it: whether it
// existed before the turn and where its content then is kept, and a
// digest of its content after the turn (undo refuses when it changed
// since).
type UndoFile struct {
	Path         string
	BeforeExists bool
	BeforeOffset int64
	BeforeLength int64
	AfterExists  bool
	AfterSum     [sha256.Size]byte
}

// UndoRecord is one turn's undo data in a SessionRecord.
type UndoRecord struct {
	TurnID string
	Files  []UndoFile
	// Contents holds the before-contents at the files' offsets; nil
	// means they were not kept, and undoing the turn says so.
	Contents io.ReaderAt
	Undone   bool
}

// ApprovalRule is an "always" answer of the user: exactly one command in
// a directory, run in the sandbox or not (older records meant it as a
// prefix: restored, it means the exact command), a set of files, or an
// MCP server's tool.
type ApprovalRule struct {
	Command []string `json:"command,omitempty"`
	Cwd     string   `json:"cwd,omitempty"`
	Files   []string `json:"files,omitempty"`
	Allow   bool     `json:"allow"`
	// Unsandbox: the answer is about running the command outside the
	// sandbox (else inside it); Retry: about running it again without the
	// sandbox after the sandbox blocked it (the JSON name is from when
	// only allowing was kept).
	Unsandbox bool `json:"unsandbox,omitempty"`
	Retry     bool `json:"retryAllow,omitempty"`
	// Server and Tool name a tool of an MCP server whose calls the
	// answer covers.
	Server string `json:"server,omitempty"`
	Tool   string `json:"tool,omitempty"`
}

// noObserver is the observer of a session nobody records.
type noObserver struct{}

func (noObserver) Item(model.Item)                          {}
func (noObserver) Event(event.Event)                        {}
func (noObserver) UndoKept(string, []UndoFile, io.ReaderAt) {}
func (noObserver) Undone(string)                            {}
func (noObserver) Checkpoint(TurnCheckpoint)                {}
func (noObserver) Rewound([]string, int)                    {}
func (noObserver) Remembered(ApprovalRule)                  {}
func (noObserver) Settings(SessionInfo)                     {}
func (noObserver) Compacted([]model.Item)                   {}
func (noObserver) Queued(string, TurnInput)                 {}

// observe gives s its observer (Options.Observe), and wires it to the
// history and the approvals.
func (m *Manager) observe(s *session, restored bool) {
	s.obs = noObserver{}
	if m.opts.Observe != nil {
		obs, err := m.opts.Observe(s.info, restored)
		if err != nil {
			m.log.Warn("the session is not recorded", "session", s.info.SessionID, "err", err)
		} else if obs != nil {
			s.obs = obs
		}
	}
	s.history.mu.Lock()
	s.history.observe = s.obs.Item
	s.history.observeCompact = s.obs.Compacted
	s.history.mu.Unlock()
	s.approvals.mu.Lock()
	s.approvals.observe = s.obs.Remembered
	s.approvals.mu.Unlock()
}
