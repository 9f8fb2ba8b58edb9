package patch

import (
	"errors"
	"fmt"
	"strings"
)

// The messages below are Codex's, word for word: models are trained to read
// them and correct their patch accordingly. Callers in the tool layer prefix
// them with "apply_patch verification failed: " as Codex does.

// ParseError reports a patch that does not follow its grammar.
type ParseError struct {
	// Line is the 1-based line of the patch the error is about (counting
	// "*** Begin Patch" as line 1); 0 when it concerns the patch as a whole.
	Line    int
	Message string
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("invalid hunk at line %d, %s", e.Line, e.Message)
	}
	return "invalid patch: " + e.Message
}

// ApplyError reports a well-formed patch that cannot be applied to the
// current files. Its message is complete (it names the path); Err is the
// cause: one of the sentinel errors below or the Reader's error.
type ApplyError struct {
	Path    string
	Message string
	Err     error
}

func (e *ApplyError) Error() string { return e.Message }

func (e *ApplyError) Unwrap() error { return e.Err }

// Causes of an ApplyError, for errors.Is.
var (
	// ErrNoChanges: the patch has no file operation. The text is
	// Codex's, word for word: models are trained on it.
	//lint:ignore ST1005 the model-facing text is Codex's apply_patch message, capital and full stop included
	ErrNoChanges = errors.New("No files were modified.")
	// ErrContextNotFound: an "@@ <line>" scope line is not in the file.
	ErrContextNotFound = errors.New("context not found")
	// ErrLinesNotFound: the lines a chunk replaces are not in the file.
	ErrLinesNotFound = errors.New("expected lines not found")
	// ErrAmbiguous: a unified-diff hunk matches several places and its
	// line number points at none of them.
	ErrAmbiguous = errors.New("ambiguous hunk")
	// ErrNotUTF8: the file to update is not UTF-8 text.
	ErrNotUTF8 = errors.New("file is not valid UTF-8 text")
)

// The fixed parse messages.
const (
	msgFirstLine = "The first line of the patch must be '*** Begin Patch'"
	msgLastLine  = "The last line of the patch must be '*** End Patch'"
	msgNoLines   = "Update hunk does not contain any lines"
)

func msgBadHeader(line string) string {
	return fmt.Sprintf("'%s' is not a valid hunk header. Valid hunk headers: '*** Add File: {path}', '*** Delete File: {path}', '*** Update File: {path}'", line)
}

func msgEmptyUpdate(path string) string {
	return fmt.Sprintf("Update file hunk for path '%s' is empty", path)
}

func msgMissingAt(line string) string {
	return fmt.Sprintf("Expected update hunk to start with a @@ context marker, got: '%s'", line)
}

func msgBadChunkLine(line string) string {
	return fmt.Sprintf("Unexpected line found in update hunk: '%s'. Every line should start with ' ' (context line), '+' (added line), or '-' (removed line)", line)
}

func errNoChanges() error {
	return &ApplyError{Message: ErrNoChanges.Error(), Err: ErrNoChanges}
}

func errContext(path, ctx string) error {
	return &ApplyError{Path: path, Err: ErrContextNotFound,
		Message: fmt.Sprintf("Failed to find context '%s' in %s", ctx, path)}
}

func errLines(path string, old []string) error {
	return &ApplyError{Path: path, Err: ErrLinesNotFound,
		Message: fmt.Sprintf("Failed to find expected lines in %s:\n%s", path, strings.Join(old, "\n"))}
}

func errAmbiguous(path string, old []string, line int, at []int) error {
	return &ApplyError{Path: path, Err: ErrAmbiguous,
		Message: fmt.Sprintf("Ambiguous hunk in %s: the expected lines occur at line %d and line %d, and the hunk's line number %d points at neither; add more context lines to the hunk:\n%s",
			path, at[0]+1, at[1]+1, line, strings.Join(old, "\n"))}
}

func errRead(path string, err error) error {
	return &ApplyError{Path: path, Err: err,
		Message: fmt.Sprintf("Failed to read file to update %s: %v", path, err)}
}

func errDelete(path string, err error) error {
	return &ApplyError{Path: path, Err: err,
		Message: fmt.Sprintf("Failed to delete file %s: %v", path, err)}
}

func errNotUTF8(path string) error {
	return &ApplyError{Path: path, Err: ErrNotUTF8,
		Message: fmt.Sprintf("Failed to read file to update %s: %v; apply_patch only edits UTF-8 text files", path, ErrNotUTF8)}
}
