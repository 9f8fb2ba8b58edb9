// Package patch turns a patch text into a set of file changes, entirely in
// memory: it never touches the file system itself. The caller hands it the
// patch and a Reader for the current contents of files and gets back a
// ChangeSet, or an error and no changes at all.
//
// Two input formats are understood, told apart by their first line:
//
//   - the apply_patch format models are trained on ("*** Begin Patch",
//     "*** Add File: ", "*** Update File: " with "@@" context lines,
//     "*** End Patch"), parsed with the same leniencies as Codex (padded
//     markers, a heredoc wrapper, several stacked "@@" scope lines);
//   - unified diffs as written by `diff -u` and `git diff` (new, deleted
//     and renamed files included), parsed with sourcegraph/go-diff.
//
// A plain (non-git) diff whose two names differ, such as x.orig and x,
// patches whichever of them exists; only git diffs rename files.
//
// Both go through the same hunk matcher. Hunks are located in file order,
// each search starting where the previous hunk ended, trying four ways of
// comparing lines in turn: exactly, ignoring trailing whitespace, ignoring
// surrounding whitespace, and after folding typographic punctuation (dashes,
// quotes, odd spaces) to ASCII. A chunk marked "*** End of File" is tried at
// the end of the file first. An apply_patch chunk takes the first match;
// a unified-diff hunk uses its line number only to choose between several
// equally good matches, so a hunk whose numbers are off still lands when its
// context is unique, and an ambiguous one is refused. A chunk with no old
// lines (a pure insertion) is appended at the end of the file, as in Codex,
// except in a unified diff, where its line number places it.
//
// A Change holds a file's contents before and after, nothing finer;
// ChangeSet.Summary is the success text Codex prints. Diffs and line
// counts for people are rendered from the contents by
// workspace.FileChange, for every kind of change alike, and a front end
// that edits a buffer works out its text edits from them too.
//
// Error messages are those of Codex, word for word, because models are
// trained to react to them. Where agent-ls deliberately differs from Codex:
//
//   - All or nothing: if any hunk of any file fails, Apply returns the error
//     and no ChangeSet, so a failed patch changes nothing.
//   - Context lines keep the file's own text: when a hunk matched only after
//     ignoring whitespace or folding punctuation, the unchanged lines stay as
//     they are in the file instead of being rewritten with the patch's text.
//   - Line endings are kept: a CRLF file stays CRLF (patch lines are matched
//     ignoring the '\r'), and a file without a final newline keeps that
//     unless the patch changes its last line.
//   - Files that are not valid UTF-8 are refused rather than mangled.
//   - A unified-style header ("@@ -12,7 +12,8 @@") in an apply_patch chunk
//     is read as a bare "@@" instead of as a context line to find.
package patch
