package patch

import (
	"io/fs"
	"path"
	"slices"
	"unicode/utf8"
)

// ApplyText parses patchText (see Parse) and applies it (see Apply).
func ApplyText(patchText string, r Reader) (ChangeSet, error) {
	p, err := Parse(patchText)
	if err != nil {
		return nil, err
	}
	return Apply(p, r)
}

// Apply computes, in memory, what p does to the files r reads. It is all
// or nothing: if any operation fails it returns the error (a *ParseError or
// *ApplyError) and no changes. Operations see the effects of the earlier
// ones in the same patch, so a file may be added and then updated, or
// deleted and then added again.
//
// As in Codex, an Add replaces an existing file, a move replaces an
// existing destination, and an Update or Delete of a missing file fails.
func Apply(p *Patch, r Reader) (ChangeSet, error) {
	if len(p.Ops) == 0 {
		return nil, errNoChanges()
	}
	files := overlay{r: r, files: make(map[string]*[]byte)}
	cs := make(ChangeSet, 0, len(p.Ops))
	for _, op := range p.Ops {
		switch op.Kind {
		case Add:
			// An Add overwrites: remember what it replaces, if anything.
			old, _ := files.read(op.Path)
			content := append([]byte{}, op.Content...)
			cs = append(cs, Change{Kind: Add, Path: op.Path, OldContent: old, NewContent: content})
			files.set(op.Path, content)
		case Delete:
			old, err := files.read(op.Path)
			if err != nil {
				return nil, errDelete(op.Path, err)
			}
			cs = append(cs, Change{Kind: Delete, Path: op.Path, OldContent: old})
			files.remove(op.Path)
		case Update:
			old, err := files.read(op.Path)
			if err != nil && op.alt != "" {
				if content, altErr := files.read(op.alt); altErr == nil {
					old, err, op.Path = content, nil, op.alt
				}
			}
			if err != nil {
				return nil, errRead(op.Path, err)
			}
			if !utf8.Valid(old) {
				return nil, errNotUTF8(op.Path)
			}
			content, err := updateContent(op.Path, old, op.Chunks)
			if err != nil {
				return nil, err
			}
			c := Change{Kind: Update, Path: op.Path, OldContent: old, NewContent: content}
			if op.MovePath != "" && path.Clean(op.MovePath) != path.Clean(op.Path) {
				c.MovePath = op.MovePath
				files.remove(op.Path)
				files.set(op.MovePath, content)
			} else {
				files.set(op.Path, content)
			}
			cs = append(cs, c)
		default:
			return nil, &ApplyError{Path: op.Path, Message: "unknown file operation for " + op.Path}
		}
	}
	return cs, nil
}

// overlay is the state of the files as the patch has left them so far,
// over what the Reader gives.
type overlay struct {
	r Reader
	// files maps a cleaned path to its content, or to nil once deleted.
	files map[string]*[]byte
}

func (o *overlay) read(p string) ([]byte, error) {
	if content, ok := o.files[path.Clean(p)]; ok {
		if content == nil {
			return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
		}
		return *content, nil
	}
	return o.r.ReadFile(p)
}

func (o *overlay) set(p string, content []byte) { o.files[path.Clean(p)] = &content }

func (o *overlay) remove(p string) { o.files[path.Clean(p)] = nil }

// replacement replaces oldLen lines at start with lines.
type replacement struct {
	start, oldLen int
	lines         []outLine
	// eofNewline is the chunk's statement about the final newline.
	eofNewline int8
}

// updateContent applies chunks to content, locating each one after the
// previous (see the package documentation for how), and returns the new
// content.
func updateContent(name string, content []byte, chunks []Chunk) ([]byte, error) {
	t := splitText(content)
	m := newMatcher(t.lines)
	n := len(t.lines)
	reps := make([]replacement, 0, len(chunks))
	from := 0
	// drift is how far the previous unified hunk landed from its stated
	// line; later hunks are expected to drift alike.
	drift := 0
	for _, c := range chunks {
		for _, scope := range c.Scopes {
			at, _ := m.find([]string{scope}, seek{from: from})
			if at < 0 {
				return nil, errContext(name, scope)
			}
			from = at + 1
		}
		hint := -1
		if c.Line > 0 {
			hint = c.Line - 1 + drift
		}
		if len(c.Old) == 0 {
			at := n
			switch {
			case hint >= 0:
				at = min(max(hint, from), n)
				from = at
			case n > 0 && t.lines[n-1] == "":
				// Codex inserts before a trailing empty line.
				at = n - 1
			}
			reps = append(reps, replacement{start: at, lines: literal(c.New), eofNewline: c.eofNewline})
			continue
		}
		old, neu, ctx := c.Old, c.New, c.contextMap()
		sk := seek{from: from, eof: c.EndOfFile, unique: hint >= 0, hint: hint}
		at, ambiguous := m.find(old, sk)
		if at < 0 && ambiguous == nil && old[len(old)-1] == "" {
			// The last old line may stand for the file's final newline,
			// which has no line of its own here: retry without it.
			old, neu, ctx = dropFinalEmpty(old, neu, ctx)
			at, ambiguous = m.find(old, sk)
		}
		if ambiguous != nil {
			return nil, errAmbiguous(name, c.Old, c.Line, ambiguous)
		}
		if at < 0 {
			return nil, errLines(name, c.Old)
		}
		lines := make([]outLine, len(neu))
		for i, l := range neu {
			if j := ctx[i]; j >= 0 {
				// A context line keeps the file's own text and ending.
				lines[i] = outLine{text: t.lines[at+j], orig: at + j}
			} else {
				lines[i] = outLine{text: l, orig: -1}
			}
		}
		reps = append(reps, replacement{start: at, oldLen: len(old), lines: lines, eofNewline: c.eofNewline})
		from = at + len(old)
		if c.Line > 0 {
			drift = at - (c.Line - 1)
		}
	}
	return assemble(t, reps), nil
}

// contextMap returns c.ctx, or a map saying every New line is literal when
// the chunk was built without one.
func (c *Chunk) contextMap() []int {
	if len(c.ctx) == len(c.New) {
		return c.ctx
	}
	ctx := make([]int, len(c.New))
	for i := range ctx {
		ctx[i] = -1
	}
	return ctx
}

// dropFinalEmpty removes the empty last old line, as Codex does, and the
// empty last new line if there is one.
func dropFinalEmpty(old, neu []string, ctx []int) ([]string, []string, []int) {
	old = old[:len(old)-1]
	ctx = slices.Clone(ctx)
	for i, j := range ctx {
		if j >= len(old) {
			ctx[i] = -1
		}
	}
	if len(neu) > 0 && neu[len(neu)-1] == "" {
		neu, ctx = neu[:len(neu)-1], ctx[:len(ctx)-1]
	}
	return old, neu, ctx
}

// literal returns lines as new lines.
func literal(lines []string) []outLine {
	out := make([]outLine, len(lines))
	for i, l := range lines {
		out[i] = outLine{text: l, orig: -1}
	}
	return out
}

// assemble writes the file with reps applied. The file ends with a newline (as Codex always writes
// it), except when it had none and its last line is left as it was, or when
// a unified diff says it has none.
func assemble(t *text, reps []replacement) []byte {
	slices.SortStableFunc(reps, func(a, b replacement) int { return a.start - b.start })
	n := len(t.lines)
	size := n
	for _, r := range reps {
		size += len(r.lines) - r.oldLen
	}
	out := make([]outLine, 0, max(size, 0))
	cur := 0
	for _, r := range reps {
		start := max(r.start, cur)
		for ; cur < start; cur++ {
			out = append(out, outLine{text: t.lines[cur], orig: cur})
		}
		out = append(out, r.lines...)
		cur = max(cur, start+r.oldLen)
	}
	for ; cur < n; cur++ {
		out = append(out, outLine{text: t.lines[cur], orig: cur})
	}
	finalNewline := true
	if n > 0 && len(out) > 0 && !t.finalNewline && out[len(out)-1].orig == n-1 {
		finalNewline = false
	}
	if len(reps) > 0 {
		if last := reps[len(reps)-1]; last.eofNewline != 0 && last.start+last.oldLen >= n {
			finalNewline = last.eofNewline > 0
		}
	}
	return t.join(out, finalNewline)
}
