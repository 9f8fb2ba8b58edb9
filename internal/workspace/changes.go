package workspace

// ChangeKind is what a FileChange does to its file.
type ChangeKind int

const (
	// Add creates the file (or replaces one that exists).
	Add ChangeKind = iota + 1
	// Update rewrites the file's content.
	Update
	// Delete removes the file.
	Delete
	// Move renames the file to NewPath, with NewContent there (an update
	// and a rename at once).
	Move
)

func (k ChangeKind) String() string {
	switch k {
	case Add:
		return "add"
	case Update:
		return "update"
	case Delete:
		return "delete"
	case Move:
		return "move"
	}
	return "unknown"
}

// FileChange is the change of one file, with absolute paths and the
// content before and after, computed in memory before anything is written.
type FileChange struct {
	Kind ChangeKind
	Path string
	// NewPath is the destination of a Move.
	NewPath string
	// Real and NewReal are where Path and NewPath land on disk: their
	// symlinks resolved when the change was decided (policy.Boundary's
	// Target). The disk write goes exactly there and follows no link on
	// the way, so a link planted since cannot carry it elsewhere. Empty
	// means Path (NewPath) resolved when the write is planned.
	Real, NewReal string
	// OldContent is the content before (nil: the file did not exist);
	// NewContent the content after (nil for a Delete).
	OldContent []byte
	NewContent []byte
}

// ChangeSet is what one tool call changes: applied all or nothing.
type ChangeSet struct {
	// Label is a short summary, shown by editors in their undo history.
	Label   string
	Changes []FileChange
}

// RejectedError says the editor refused a change set; nothing of it was
// applied anywhere. Its message states what happened; what the model
// should do about it is the tools' to say.
type RejectedError struct {
	// Reason is the editor's, when it gave one.
	Reason string
	// Paths are the open documents the edit was for.
	Paths []string
	// Declined: the user declined the edit in the editor (such as eglot's
	// confirmation), a decision like a rejected approval.
	Declined bool
}

func (e *RejectedError) Error() string {
	if e.Declined {
		msg := "rejected: the user declined this change in the editor"
		if e.Reason != "" {
			msg += " (" + e.Reason + ")"
		}
		return msg + "; nothing was changed"
	}
	msg := "the editor did not apply the change"
	if e.Reason != "" {
		msg += " (" + e.Reason + ")"
	}
	return msg + "; nothing was changed"
}

// ReviewedError says the user reviewed a change set before it was
// applied (protocol section 5.3) and did not simply accept it: only some
// of it was applied, or none, or it came with a comment. Report says
// exactly what was applied, what was not and the user's words, for the
// model.
type ReviewedError struct {
	// Applied: some of the change set was applied (the ChangeSet holds
	// what was).
	Applied bool
	Report  string
}

func (e *ReviewedError) Error() string { return e.Report }
