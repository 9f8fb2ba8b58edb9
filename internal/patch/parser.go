package patch

import (
	"regexp"
	"strings"
	"sync"
)

// Markers of the apply_patch format.
const (
	beginMarker  = "*** Begin Patch"
	endMarker    = "*** End Patch"
	addMarker    = "*** Add File: "
	deleteMarker = "*** Delete File: "
	updateMarker = "*** Update File: "
	moveMarker   = "*** Move to: "
	eofMarker    = "*** End of File"
)

// heredocStart matches the first line of a patch wrapped the way models
// write a shell heredoc: "<<EOF", "<<'EOF'", `apply_patch <<"PATCH"`.
// Compiled on first use, not at every start of agent-ls.
var heredocStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:(?:apply_patch|applypatch)\s+)?<<-?\s*(['"]?)([A-Za-z_][A-Za-z0-9_]*)(['"]?)$`)
})

// unifiedRange matches what follows "@@ " in a unified hunk header.
var unifiedRange = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^-\d+(?:,\d+)? \+\d+(?:,\d+)? @@`)
})

// Parse reads a patch in the apply_patch format or as a unified diff. The
// text may be surrounded by whitespace and wrapped in a heredoc
// ("<<'EOF'" ... "EOF", optionally preceded by "apply_patch"). A text that
// is neither format gets the apply_patch format's error, which is what
// models know how to react to.
func Parse(text string) (*Patch, error) {
	lines := splitPatchLines(text)
	// Drop the blank lines around the patch. Only empty ones at the end:
	// in a unified diff, a last line of spaces is still a hunk line.
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if inner, ok := unwrapHeredoc(lines); ok {
		lines = inner
	}
	if (len(lines) == 0 || strings.TrimSpace(lines[0]) != beginMarker) && looksUnified(lines) {
		return parseUnified(lines)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	return parseApplyPatch(lines)
}

// splitPatchLines splits text into lines without their "\n" or "\r\n"
// ending; a final line ending does not start an empty line.
func splitPatchLines(text string) []string {
	if text == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	return lines
}

// unwrapHeredoc returns the lines between a heredoc's opening line and its
// delimiter, without blank lines at either end.
func unwrapHeredoc(lines []string) ([]string, bool) {
	if len(lines) < 3 {
		return nil, false
	}
	m := heredocStart().FindStringSubmatch(strings.TrimSpace(lines[0]))
	if m == nil || m[1] != m[3] {
		return nil, false
	}
	if !strings.HasSuffix(strings.TrimSpace(lines[len(lines)-1]), m[2]) {
		return nil, false
	}
	inner := lines[1 : len(lines)-1]
	for len(inner) > 0 && strings.TrimSpace(inner[0]) == "" {
		inner = inner[1:]
	}
	for len(inner) > 0 && strings.TrimSpace(inner[len(inner)-1]) == "" {
		inner = inner[:len(inner)-1]
	}
	return inner, true
}

// parseApplyPatch parses the "*** Begin Patch" format.
func parseApplyPatch(lines []string) (*Patch, error) {
	if err := checkEnvelope(lines); err != nil {
		return nil, err
	}
	p := &Patch{Format: FormatApplyPatch}
	body := lines[1 : len(lines)-1]
	lineNo := 2
	for len(body) > 0 {
		if strings.TrimSpace(body[0]) == "" {
			body, lineNo = body[1:], lineNo+1
			continue
		}
		op, n, err := parseFileOp(body, lineNo)
		if err != nil {
			return nil, err
		}
		p.Ops = append(p.Ops, op)
		body, lineNo = body[n:], lineNo+n
	}
	return p, nil
}

// checkEnvelope checks the first and last lines, tolerating whitespace
// around the markers.
func checkEnvelope(lines []string) error {
	if len(lines) == 0 {
		// Codex reports an empty patch as a missing last line.
		return &ParseError{Message: msgLastLine}
	}
	if strings.TrimSpace(lines[0]) != beginMarker {
		return &ParseError{Message: msgFirstLine}
	}
	if len(lines) < 2 || strings.TrimSpace(lines[len(lines)-1]) != endMarker {
		return &ParseError{Message: msgLastLine}
	}
	return nil
}

// parseFileOp parses the file operation at the start of lines, whose first
// line is line lineNo of the patch. It returns how many lines it used.
func parseFileOp(lines []string, lineNo int) (FileOp, int, error) {
	header := strings.TrimSpace(lines[0])
	if path, ok := strings.CutPrefix(header, addMarker); ok {
		var content strings.Builder
		n := 1
		for _, l := range lines[1:] {
			text, ok := strings.CutPrefix(l, "+")
			if !ok {
				break
			}
			content.WriteString(text)
			content.WriteByte('\n')
			n++
		}
		return FileOp{Kind: Add, Path: strings.TrimSpace(path), Content: content.String()}, n, nil
	}
	if path, ok := strings.CutPrefix(header, deleteMarker); ok {
		return FileOp{Kind: Delete, Path: strings.TrimSpace(path)}, 1, nil
	}
	path, ok := strings.CutPrefix(header, updateMarker)
	if !ok {
		return FileOp{}, 0, &ParseError{Line: lineNo, Message: msgBadHeader(header)}
	}
	op := FileOp{Kind: Update, Path: strings.TrimSpace(path)}
	rest, n := lines[1:], 1
	if len(rest) > 0 {
		if to, ok := strings.CutPrefix(strings.TrimSpace(rest[0]), moveMarker); ok {
			op.MovePath = strings.TrimSpace(to)
			rest, n = rest[1:], n+1
		}
	}
	for len(rest) > 0 {
		if strings.TrimSpace(rest[0]) == "" {
			rest, n = rest[1:], n+1
			continue
		}
		if strings.HasPrefix(rest[0], "*") {
			break
		}
		c, used, err := parseChunk(rest, lineNo+n, len(op.Chunks) == 0)
		if err != nil {
			return FileOp{}, 0, err
		}
		op.Chunks = append(op.Chunks, c)
		rest, n = rest[used:], n+used
	}
	if len(op.Chunks) == 0 {
		return FileOp{}, 0, &ParseError{Line: lineNo, Message: msgEmptyUpdate(op.Path)}
	}
	return op, n, nil
}

// parseChunk parses one change of an Update: optional "@@" scope lines,
// then context, removed and added lines, then optionally "*** End of
// File". Only the first chunk of a file may omit "@@". Line numbers in
// errors follow Codex's.
func parseChunk(lines []string, lineNo int, first bool) (Chunk, int, error) {
	var c Chunk
	i := 0
	for ; i < len(lines); i++ {
		l := lines[i]
		if strings.TrimSpace(l) == "@@" {
			continue
		}
		scope, ok := strings.CutPrefix(l, "@@ ")
		if !ok {
			break
		}
		// A unified-style "@@ -12,7 +12,8 @@ func f" header carries no
		// line the file is sure to contain: treat it as a bare "@@".
		if !unifiedRange().MatchString(scope) && strings.TrimSpace(scope) != "" {
			c.Scopes = append(c.Scopes, scope)
		}
	}
	if i == 0 && !first {
		return c, 0, &ParseError{Line: lineNo, Message: msgMissingAt(lines[0])}
	}
	if i >= len(lines) {
		return c, 0, &ParseError{Line: lineNo + 1, Message: msgNoLines}
	}
	n := 0
	for _, l := range lines[i:] {
		if strings.TrimRight(l, " \t") == eofMarker {
			if n == 0 {
				return c, 0, &ParseError{Line: lineNo + 1, Message: msgNoLines}
			}
			c.EndOfFile = true
			n++
			break
		}
		if !c.addLine(l) {
			if n == 0 {
				return c, 0, &ParseError{Line: lineNo + 1, Message: msgBadChunkLine(l)}
			}
			break // the start of the next chunk or file operation
		}
		n++
	}
	return c, i + n, nil
}

// addLine adds a line of a chunk's body, told by its first character: a
// context line (' ', or an empty line), an added ('+') or a removed ('-')
// one. Any other line is not the chunk's: it adds nothing and reports
// false.
func (c *Chunk) addLine(l string) bool {
	switch {
	case l == "":
		c.addContext("")
	case l[0] == ' ':
		c.addContext(l[1:])
	case l[0] == '+':
		c.New = append(c.New, l[1:])
		c.ctx = append(c.ctx, -1)
	case l[0] == '-':
		c.Old = append(c.Old, l[1:])
	default:
		return false
	}
	return true
}

// addContext appends a line that is both in Old and in New.
func (c *Chunk) addContext(text string) {
	c.ctx = append(c.ctx, len(c.Old))
	c.Old = append(c.Old, text)
	c.New = append(c.New, text)
}
