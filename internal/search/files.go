package search

import "context"

// FileWalk says what WalkFiles visits and tells of.
type FileWalk struct {
	// Root is the absolute directory walked; ignore files apply from its
	// repository's root (or Root itself).
	Root string
	// SkipDir, when set, leaves out a directory for which it reports
	// true (beside those an ignore file leaves out).
	SkipDir func(abs string) bool
	// IgnoredDir, when set, is told of each directory an ignore file
	// leaves out.
	IgnoredDir func(abs string)
}

// WalkFiles visits every regular file below w.Root that a snapshot of
// the workspace keeps: hidden ones too, never .git, nothing an ignore
// file (.gitignore, .ignore, git's excludes) leaves out, and no directory
// reached through a symbolic link. visit runs on several goroutines at
// once. Directories it could not read come back as notes.
func WalkFiles(ctx context.Context, w FileWalk, visit func(abs string)) []Note {
	opts := walkOptions{Root: w.Root, Base: ignoreBase(w.Root, w.Root), Hidden: true, IgnoredDir: w.IgnoredDir}
	if w.SkipDir != nil {
		opts.Skip = func(abs string, link bool) bool { return !link && w.SkipDir(abs) }
	}
	return walk(ctx, opts, func(f walkFile) { visit(f.Abs) })
}
