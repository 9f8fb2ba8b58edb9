package tools

import (
	"strings"
	"unicode/utf8"
)

// OutputLimits caps the text one call returns to the model.
type OutputLimits struct {
	// MaxBytes and MaxLines bound a whole output.
	MaxBytes int
	MaxLines int
	// MaxLineBytes bounds one line of file content; longer lines are cut
	// with a marker.
	MaxLineBytes int
}

// Defaults chosen so that a full read_file page (2,000 short lines) fits,
// while one output stays well under the model's per-item budget.
const (
	DefaultMaxOutputBytes = 32 << 10
	DefaultMaxOutputLines = 2000
	DefaultMaxLineBytes   = 500
)

func (l OutputLimits) withDefaults() OutputLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = DefaultMaxOutputBytes
	}
	if l.MaxLines <= 0 {
		l.MaxLines = DefaultMaxOutputLines
	}
	if l.MaxLineBytes <= 0 {
		l.MaxLineBytes = DefaultMaxLineBytes
	}
	return l
}

func (env *Env) limits() OutputLimits {
	if env == nil {
		return OutputLimits{}.withDefaults()
	}
	return env.Limits.withDefaults()
}

// budget collects whole lines of output until a cap is reached. Callers
// add lines while Add returns true and then explain, with what they know
// about the next item, how the model gets the rest.
type budget struct {
	lim   OutputLimits
	b     strings.Builder
	lines int
	full  bool
}

func newBudget(lim OutputLimits) *budget { return &budget{lim: lim} }

// reserve is kept free for the trailer that explains a cut.
const reserve = 400

// Add appends line (without its newline) and reports whether it fit.
func (b *budget) Add(line string) bool {
	if b.full {
		return false
	}
	if b.lines+1 > b.lim.MaxLines || b.b.Len()+len(line)+1 > b.lim.MaxBytes-reserve {
		b.full = true
		return false
	}
	b.b.WriteString(line)
	b.b.WriteByte('\n')
	b.lines++
	return true
}

// Full reports whether a line was refused.
func (b *budget) Full() bool { return b.full }

// String returns the collected lines followed by trailer, if any.
func (b *budget) String(trailer string) string {
	s := strings.TrimSuffix(b.b.String(), "\n")
	if trailer == "" {
		return s
	}
	if s == "" {
		return trailer
	}
	return s + "\n" + trailer
}

// capReason says which cap stopped the output.
func (b *budget) capReason() string {
	if b.lines+1 > b.lim.MaxLines {
		return "the output limit of " + itoa(b.lim.MaxLines) + " lines"
	}
	return "the output limit of " + itoa(b.lim.MaxBytes) + " bytes"
}

// cutLineOf renders a line of which head is the start and total the full
// length (without its newline), cut to max bytes with a marker.
func cutLineOf(head []byte, total, max int) string {
	if total <= max {
		return string(head)
	}
	n := min(max, len(head))
	for n > 0 && !utf8.RuneStart(head[n]) {
		n--
	}
	return string(head[:n]) + cutMarker(total-n)
}

// cutLine shortens s to at most max bytes on a rune boundary, marking the
// cut with how much was left out.
func cutLine(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := max
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + cutMarker(len(s)-n)
}

// cutMarker ends a line that was cut, saying how many bytes were left
// out.
func cutMarker(n int) string { return " [… line cut: " + itoa(n) + " more bytes]" }
