package patch

import (
	"fmt"
	"path"
	"strings"

	"github.com/sourcegraph/go-diff/diff"
)

const devNull = "/dev/null"

// looksUnified reports whether lines look like a unified diff: a git
// header, or a "--- " line directly followed by a "+++ " line.
func looksUnified(lines []string) bool {
	for i, l := range lines {
		if strings.HasPrefix(l, "diff --git ") {
			return true
		}
		if strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ ") {
			return true
		}
	}
	return false
}

// parseUnified parses `diff -u` or `git diff` output into file operations.
func parseUnified(lines []string) (*Patch, error) {
	// go-diff silently drops hunks whose header it cannot read (a bare
	// "@@" is common in model output); refuse them instead.
	for i, l := range lines {
		if strings.HasPrefix(l, "@@") && !unifiedRange().MatchString(strings.TrimPrefix(l, "@@ ")) {
			return nil, &ParseError{Message: fmt.Sprintf(
				"line %d: '%s' is not a valid unified diff hunk header; expected '@@ -<line>,<count> +<line>,<count> @@'", i+1, l)}
		}
	}
	fds, err := diff.ParseMultiFileDiff([]byte(strings.Join(lines, "\n") + "\n"))
	if err != nil {
		return nil, &ParseError{Message: "could not parse the unified diff: " + err.Error()}
	}
	p := &Patch{Format: FormatUnified}
	for _, fd := range fds {
		op, ok, err := fileDiffOp(fd)
		if err != nil {
			return nil, err
		}
		if ok {
			p.Ops = append(p.Ops, op)
		}
	}
	return p, nil
}

// fileDiffOp turns one file of a unified diff into a file operation; ok is
// false for a diff that changes nothing we can apply (a mode change).
func fileDiffOp(fd *diff.FileDiff) (op FileOp, ok bool, err error) {
	orig, neu, git := diffPaths(fd)
	var renameFrom, renameTo string
	isNew, isDeleted := orig == devNull, neu == devNull
	for _, x := range fd.Extended {
		switch {
		case strings.HasPrefix(x, "Binary files ") || x == "GIT binary patch":
			return op, false, &ParseError{Message: fmt.Sprintf("binary diffs are not supported (%s)", neu)}
		case strings.HasPrefix(x, "copy from ") || strings.HasPrefix(x, "copy to "):
			return op, false, &ParseError{Message: fmt.Sprintf("copied files are not supported (%s)", neu)}
		case strings.HasPrefix(x, "rename from "):
			renameFrom = strings.TrimPrefix(x, "rename from ")
		case strings.HasPrefix(x, "rename to "):
			renameTo = strings.TrimPrefix(x, "rename to ")
		case strings.HasPrefix(x, "new file mode "):
			isNew = true
		case strings.HasPrefix(x, "deleted file mode "):
			isDeleted = true
		}
	}
	if renameFrom != "" && renameTo != "" {
		orig, neu = renameFrom, renameTo
	}
	if (orig == "" && !isNew) || (neu == "" && !isDeleted) {
		return op, false, &ParseError{Message: "a file in the unified diff has no name"}
	}
	chunks := make([]Chunk, 0, len(fd.Hunks))
	for _, h := range fd.Hunks {
		c, err := hunkChunk(h)
		if err != nil {
			return op, false, err
		}
		chunks = append(chunks, c)
	}
	switch {
	case isNew:
		return FileOp{Kind: Add, Path: neu, Content: addedContent(chunks)}, true, nil
	case isDeleted:
		return FileOp{Kind: Delete, Path: orig}, true, nil
	case len(chunks) == 0 && orig == neu:
		return op, false, nil
	}
	op = FileOp{Kind: Update, Path: orig, Chunks: chunks}
	switch {
	case neu == orig:
	case git || renameTo != "":
		op.MovePath = neu
	default:
		// A plain diff cannot rename: its two names are the file before
		// and after (say x.orig and x). Patch the one that exists,
		// trying first the shorter name, as GNU patch prefers it.
		op.Path, op.alt = neu, orig
		if len(path.Base(orig)) < len(path.Base(neu)) {
			op.Path, op.alt = orig, neu
		}
	}
	return op, true, nil
}

// diffPaths returns the old and new paths of a file diff, without git's
// a/ and b/ prefixes, and whether it is a git diff.
func diffPaths(fd *diff.FileDiff) (orig, neu string, git bool) {
	orig, neu = fd.OrigName, fd.NewName
	for _, x := range fd.Extended {
		if strings.HasPrefix(x, "diff --git ") {
			git = true
			break
		}
	}
	prefixed := func(name, prefix string) bool { return name == devNull || strings.HasPrefix(name, prefix) }
	if git || (prefixed(orig, "a/") && prefixed(neu, "b/") && orig != neu) {
		if orig != devNull {
			orig = strings.TrimPrefix(orig, "a/")
		}
		if neu != devNull {
			neu = strings.TrimPrefix(neu, "b/")
		}
	}
	return orig, neu, git
}

// hunkChunk converts a unified hunk into a chunk. Its header's line number
// becomes the chunk's Line hint; "\ No newline at end of file" markers
// anchor the chunk at the end of the file and say how the file ends.
func hunkChunk(h *diff.Hunk) (Chunk, error) {
	c := Chunk{Line: int(h.OrigStartLine)}
	if h.OrigLines == 0 {
		// "-5,0" inserts after line 5, that is before line 6.
		c.Line = int(h.OrigStartLine) + 1
	}
	body := string(h.Body)
	noNewlineNew := body != "" && !strings.HasSuffix(body, "\n")
	lastIsContext := false
	if body != "" {
		for _, l := range strings.Split(strings.TrimSuffix(body, "\n"), "\n") {
			lastIsContext = l == "" || l[0] == ' '
			// A "\ No newline at end of file" marker go-diff left in
			// is passed over.
			if !c.addLine(l) && l[0] != '\\' {
				return c, &ParseError{Message: fmt.Sprintf("unexpected line in unified diff hunk '@@ -%d,%d +%d,%d @@': '%s'",
					h.OrigStartLine, h.OrigLines, h.NewStartLine, h.NewLines, l)}
			}
		}
	}
	noNewlineOld := h.OrigNoNewlineAt > 0 || (noNewlineNew && lastIsContext)
	c.EndOfFile = noNewlineOld
	switch {
	case noNewlineNew:
		c.eofNewline = -1
	case noNewlineOld:
		c.eofNewline = +1
	}
	return c, nil
}

// addedContent is the content of a new file given as hunks of added lines.
func addedContent(chunks []Chunk) string {
	var b strings.Builder
	for _, c := range chunks {
		for _, l := range c.New {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	s := b.String()
	if len(chunks) > 0 && chunks[len(chunks)-1].eofNewline < 0 {
		s = strings.TrimSuffix(s, "\n")
	}
	return s
}
