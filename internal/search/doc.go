// Package search finds files and lines the way ripgrep does by default:
// it walks a tree in parallel, honours .gitignore and .ignore files (and
// git's info/exclude and core.excludesFile) with git's own rules, skips
// hidden files, binary files and .git, does not follow links to
// directories, and matches lines without running the regular expression
// line by line (a literal, a set of literals or a lazy DFA picks the
// candidate lines first). The grep_files and glob tools of
// internal/tools are built on it.
//
// Two entry points:
//
//   - NewGrep compiles a Query (a pattern and an include glob); the Grep
//     then searches one text (Text), one file (File) or a tree (Tree),
//     and Result returns what it found: the first hits in path order up
//     to the query's limit, the counts of all of them, and the paths it
//     could not search. Memory stays bounded however large the tree:
//     each worker reuses one read buffer, and kept hits are trimmed to
//     the limit as they come in.
//   - NewGlob compiles a glob over paths; Find lists the files below a
//     directory that match it.
//
// Both read the documents open in the editor (Docs) instead of the disk,
// and find those not saved yet. Files on disk are opened without ever
// blocking (a named pipe or a device is refused, not read), and files
// over the query's size limit are skipped and noted. Paths are given
// absolute; results name files by slash-separated paths relative to what
// was searched. Showing the results to the model (its words, its output
// limits) is the tools' business.
package search
