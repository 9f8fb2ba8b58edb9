package patch

import "io/fs"

// Reader gives the current content of a file. Paths are passed exactly as
// they are written in the patch (after stripping the a/ and b/ prefixes of
// a git diff); resolving them against a working directory, and deciding
// whether absolute paths are acceptable, is the caller's job. A path that
// does not exist should yield an error wrapping fs.ErrNotExist.
type Reader interface {
	ReadFile(path string) ([]byte, error)
}

// ReaderFunc adapts a function to the Reader interface.
type ReaderFunc func(path string) ([]byte, error)

// ReadFile calls f(path).
func (f ReaderFunc) ReadFile(path string) ([]byte, error) { return f(path) }

// FSReader reads files from an fs.FS, e.g. os.DirFS(root) in tests. Paths
// must then be valid fs.FS paths (relative, slash-separated).
func FSReader(fsys fs.FS) Reader {
	return ReaderFunc(func(path string) ([]byte, error) { return fs.ReadFile(fsys, path) })
}

// Kind is what a file operation does to its file.
type Kind int

// File operation kinds.
const (
	Add Kind = iota + 1
	Delete
	Update
)

// String returns "add", "delete" or "update".
func (k Kind) String() string {
	switch k {
	case Add:
		return "add"
	case Delete:
		return "delete"
	case Update:
		return "update"
	}
	return "unknown"
}

// Format is the syntax a patch was written in.
type Format int

// Patch formats.
const (
	// FormatApplyPatch is the "*** Begin Patch" format.
	FormatApplyPatch Format = iota + 1
	// FormatUnified is a unified diff (diff -u, git diff).
	FormatUnified
)

// Patch is a parsed patch: file operations in the order they appear.
type Patch struct {
	Format Format
	Ops    []FileOp
}

// FileOp is one file operation of a patch.
type FileOp struct {
	Kind Kind
	// Path is the file the operation applies to, as written in the patch.
	Path string
	// MovePath, for an Update, is where the file is moved to ("" if it
	// stays).
	MovePath string
	// Content is the whole content of an added file.
	Content string
	// Chunks are the changes of an Update, in file order.
	Chunks []Chunk

	// alt is the other name a plain unified diff gives the file, patched
	// instead of Path when Path does not exist.
	alt string
}

// Chunk is one contiguous change inside an updated file: the lines Old are
// replaced with the lines New (both without line endings).
type Chunk struct {
	// Scopes are the "@@ <line>" headers of the chunk, outermost first.
	// Each is searched for in turn, from where the previous one was found,
	// and Old must come after the last of them.
	Scopes []string
	Old    []string
	New    []string
	// EndOfFile asks for Old to be matched at the end of the file first.
	EndOfFile bool
	// Line is the 1-based line number where Old starts (for a pure
	// insertion: the line it is inserted before), taken from a unified
	// diff's hunk header; 0 when the patch gives none. It only breaks ties
	// between several matches (a chunk with a Line that matches in several
	// places, none of them at Line, is refused as ambiguous), and places
	// insertions that have no context.
	Line int

	// ctx maps each New line that is a context line to its index in Old,
	// -1 for an added line; nil when unknown (all lines literal).
	ctx []int
	// eofNewline, for a unified-diff hunk that reaches the end of the file,
	// says whether the new file ends with a newline: +1 yes, -1 no ("\ No
	// newline at end of file"), 0 not stated.
	eofNewline int8
}

// Change is the effect of one file operation, computed in memory.
//
// Changes of a ChangeSet must be applied in order: when a patch touches the
// same path twice (say, deletes it then adds it again), the second Change
// starts from the state the first one left.
type Change struct {
	Kind Kind
	// Path is the file as written in the patch.
	Path string
	// MovePath, for an Update, is the destination of a move; "" if the
	// file stays where it is. A move replaces an existing destination.
	MovePath string
	// OldContent is the content before the change: nil for an Add of a
	// file that did not exist.
	OldContent []byte
	// NewContent is the content after the change: nil for a Delete, and
	// never nil otherwise.
	NewContent []byte
}

// ChangeSet is the result of applying a patch: one Change per file
// operation, in patch order.
type ChangeSet []Change
