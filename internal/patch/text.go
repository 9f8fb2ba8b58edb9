package patch

import (
	"bytes"
	"strings"
)

// utf8BOM is kept aside while matching and written back unchanged.
const utf8BOM = "\uFEFF"

// text is a file's content split into lines for matching, with what is
// needed to write it back byte for byte where it is not changed.
type text struct {
	// lines holds each line without its ending ("\n" or "\r\n").
	lines []string
	// crlf[i] reports whether line i ended with "\r\n".
	crlf []bool
	// finalNewline reports whether the last line ended with a newline.
	finalNewline bool
	// eol is the ending given to new lines: the file's dominant one.
	eol string
	bom bool
}

// splitText splits content into lines. As in Codex, a final newline does
// not start an extra empty line, so "a\nb\n" and "a\nb" both have two.
func splitText(content []byte) *text {
	s := string(content)
	t := &text{eol: "\n"}
	if rest, ok := strings.CutPrefix(s, utf8BOM); ok {
		t.bom, s = true, rest
	}
	n := strings.Count(s, "\n")
	t.lines = make([]string, 0, n+1)
	t.crlf = make([]bool, 0, n+1)
	crlfs := 0
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			t.lines = append(t.lines, s)
			t.crlf = append(t.crlf, false)
			break
		}
		line, cr := s[:i], false
		if strings.HasSuffix(line, "\r") {
			line, cr = line[:len(line)-1], true
			crlfs++
		}
		t.lines = append(t.lines, line)
		t.crlf = append(t.crlf, cr)
		s = s[i+1:]
		t.finalNewline = s == ""
	}
	// Like Codex's detection: CRLF wins ties, so a mixed file with as
	// many of each gets CRLF for its new lines.
	if crlfs > 0 && crlfs >= n-crlfs {
		t.eol = "\r\n"
	}
	return t
}

// outLine is one line of an updated file: either a line kept from the
// original (orig >= 0, written with its own ending) or a new line.
type outLine struct {
	text string
	orig int
}

// join writes the updated file: the lines of out, each ended like the
// original line it comes from or with the file's dominant ending, and a
// final line ending only if finalNewline.
func (t *text) join(out []outLine, finalNewline bool) []byte {
	size := len(utf8BOM)
	for _, l := range out {
		size += len(l.text) + 2
	}
	b := bytes.NewBuffer(make([]byte, 0, size)) // never nil, even when empty
	if t.bom {
		b.WriteString(utf8BOM)
	}
	for i, l := range out {
		b.WriteString(l.text)
		if i == len(out)-1 && !finalNewline {
			break
		}
		switch {
		case l.orig < 0:
			b.WriteString(t.eol)
		case t.crlf[l.orig]:
			b.WriteString("\r\n")
		default:
			b.WriteByte('\n')
		}
	}
	return b.Bytes()
}
