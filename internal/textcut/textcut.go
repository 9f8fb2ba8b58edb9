// Package textcut shortens text for people: to a number of bytes without
// splitting a UTF-8 sequence, and to its first line. Every message,
// status line and log field that shows a piece of longer text goes
// through it, so none of them cuts a character in half. It also makes
// text from outside agent-ls safe to show (Visible): control characters,
// escape sequences and bidi tricks written as visible escapes.
package textcut

import (
	"fmt"
	"strings"
)

// Ellipsis marks text that was cut.
const Ellipsis = "…"

// Prefix returns the longest prefix of s of at most n bytes that does not
// end inside a UTF-8 sequence.
func Prefix(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Cut returns s when it has at most n bytes, else its Prefix of n bytes
// followed by Ellipsis.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return Prefix(s, n) + Ellipsis
}

// FirstLine returns the first line of s with surrounding space trimmed,
// Cut to n bytes (n <= 0: not cut).
func FirstLine(s string, n int) string {
	line, _ := firstLine(s)
	if n > 0 {
		line = Cut(line, n)
	}
	return line
}

// Summary is FirstLine followed by " …" when more lines follow, for a
// one-line view of a longer text.
func Summary(s string, n int) string {
	line, more := firstLine(s)
	if more {
		line += " " + Ellipsis
	}
	if n > 0 {
		line = Cut(line, n)
	}
	return line
}

func firstLine(s string) (line string, more bool) {
	s = strings.TrimSpace(s)
	line, rest, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line), strings.TrimSpace(rest) != ""
}

// Size writes n bytes for people: "512 bytes", "37 KiB", "12 MiB" (whole
// units, rounded down, from ten of them up).
func Size(n int64) string {
	switch {
	case n >= 10<<20:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 10<<10:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
