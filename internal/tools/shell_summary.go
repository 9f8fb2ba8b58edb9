package tools

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// outputSummary is what the model is shown of a command's output: all of
// it when short, else its first and last lines with an exact account of
// what lies between.
type outputSummary struct {
	text  string
	cut   bool
	lines int64
	bytes int64
}

// summarize keeps, of the output c captured, the first and last n lines,
// at most maxBytes in all (half from each end), and says exactly which
// lines and how many bytes it left out. Counts are of the whole output,
// whatever was kept in memory.
func summarize(c *capture, n, maxBytes int) outputSummary {
	total, lines := c.total, c.lines()
	sum := outputSummary{lines: lines, bytes: total}
	head, tail := c.ends()
	if lines <= int64(2*n) && total <= int64(maxBytes) {
		sum.text = validUTF8(head)
		return sum
	}
	hn, tn := n, n
	if lines <= int64(2*n) {
		// Few but long lines: half each side, and a single line shows
		// its beginning and its end.
		hn = int((lines + 1) / 2)
		tn = max(1, int(lines)-hn)
	}
	a := headEnd(head, hn, maxBytes/2)                  // bytes [0, a) are shown
	b := total - int64(tailStart(tail, tn, maxBytes/2)) // and [b, total)
	if int64(a) >= b {
		sum.text = validUTF8(head)
		return sum
	}
	tailShown := tail[int64(len(tail))-(total-b):]
	// Line numbers (from 1) of the first and last byte left out.
	first := 1 + int64(bytes.Count(head[:a], newline))
	last := 1 + c.newlines - int64(bytes.Count(tail[int64(len(tail))-(total-b)-1:], newline))
	var which string
	if first == last {
		which = fmt.Sprintf("part of line %d", first)
	} else {
		which = fmt.Sprintf("lines %d to %d", first, last)
	}
	headText := validUTF8(head[:a])
	if !strings.HasSuffix(headText, "\n") {
		headText += "\n"
	}
	sum.text = fmt.Sprintf("%s[... omitted %s of %d (%d of %d bytes) ...]\n%s",
		headText, which, lines, b-int64(a), total, validUTF8(tailShown))
	sum.cut = true
	return sum
}

// headEnd is where the shown beginning of s ends: after its first n
// lines, or less to stay within max bytes (at a line end if one is
// there, else at a character boundary).
func headEnd(s []byte, n, max int) int {
	end := 0
	for i := 0; i < n; i++ {
		j := bytes.IndexByte(s[end:], '\n')
		if j < 0 {
			end = len(s)
			break
		}
		end += j + 1
	}
	if end <= max {
		return end
	}
	if j := bytes.LastIndexByte(s[:max], '\n'); j >= 0 {
		return j + 1
	}
	for max > 0 && !utf8.RuneStart(s[max]) {
		max--
	}
	return max
}

// tailStart returns how many bytes at the end of s are shown: its last n
// lines, or fewer bytes to stay within max (from a line start if one is
// there, else from a character boundary).
func tailStart(s []byte, n, max int) int {
	start := len(s)
	if start > 0 && s[start-1] == '\n' {
		start-- // the final newline ends the last line, it starts none
	}
	for i := 0; i < n && start > 0; i++ {
		j := bytes.LastIndexByte(s[:start], '\n')
		if i == n-1 {
			start = j + 1
			break
		}
		if j < 0 {
			start = 0
			break
		}
		start = j
	}
	size := len(s) - start
	if size <= max {
		return size
	}
	from := len(s) - max
	if j := bytes.IndexByte(s[from:], '\n'); j >= 0 && from+j+1 < len(s) {
		return len(s) - (from + j + 1)
	}
	for from < len(s) && !utf8.RuneStart(s[from]) {
		from++
	}
	return len(s) - from
}

func validUTF8(b []byte) string { return strings.ToValidUTF8(string(b), "\uFFFD") }
