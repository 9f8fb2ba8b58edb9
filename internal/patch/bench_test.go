package patch

import (
	"fmt"
	"strings"
	"testing"
)

// benchLines returns a Go-like file of n lines, with the repetition real
// code has (closing braces, blank lines, a common statement).
func benchLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		switch i % 10 {
		case 0:
			lines[i] = fmt.Sprintf("func f%d() error {", i)
		case 7:
			lines[i] = "\treturn nil"
		case 8:
			lines[i] = "}"
		case 9:
			lines[i] = ""
		default:
			lines[i] = fmt.Sprintf("\tv%d := compute(%d, \"%d\")", i, i*7, i)
		}
	}
	return lines
}

// benchChanged are the lines the benchmarks' patches change in a file of
// n lines: one every 200 lines, with three lines of context on each side.
func benchChanged(n int) []int {
	var at []int
	for i := 104; i+4 < n; i += 200 {
		at = append(at, i)
	}
	return at
}

// benchFile returns the file of benchLines and an apply_patch patch
// changing each line of benchChanged, with three lines of context on
// each side. indent is put before each patch line, to make the matcher
// fall back to its whitespace-insensitive pass.
func benchFile(n int, indent string) (file, patch string) {
	lines := benchLines(n)
	var p strings.Builder
	p.WriteString("*** Begin Patch\n*** Update File: big.go\n")
	for _, at := range benchChanged(n) {
		p.WriteString("@@\n")
		for _, l := range lines[at-3 : at] {
			p.WriteString(" " + indent + l + "\n")
		}
		p.WriteString("-" + indent + lines[at] + "\n")
		p.WriteString("+" + indent + lines[at] + " // changed\n")
		for _, l := range lines[at+1 : at+4] {
			p.WriteString(" " + indent + l + "\n")
		}
	}
	p.WriteString("*** End Patch\n")
	return strings.Join(lines, "\n") + "\n", p.String()
}

// benchDiff returns the changes of benchFile's patch (without indent) as
// a git-style unified diff whose hunk line numbers are all off by shift.
func benchDiff(n, shift int) string {
	lines := benchLines(n)
	var d strings.Builder
	d.WriteString("diff --git a/big.go b/big.go\n--- a/big.go\n+++ b/big.go\n")
	for _, at := range benchChanged(n) {
		first := at - 3 + 1 + shift
		fmt.Fprintf(&d, "@@ -%d,7 +%d,7 @@\n", first, first)
		for _, l := range lines[at-3 : at] {
			d.WriteString(" " + l + "\n")
		}
		d.WriteString("-" + lines[at] + "\n")
		d.WriteString("+" + lines[at] + " // changed\n")
		for _, l := range lines[at+1 : at+4] {
			d.WriteString(" " + l + "\n")
		}
	}
	return d.String()
}

// BenchmarkApply parses and applies a patch with one hunk per 200 lines
// (50 hunks at 10,000 lines): time should grow linearly with the size.
func BenchmarkApply(b *testing.B) {
	for _, mode := range []struct{ name, indent string }{{"exact", ""}, {"reindented", "  "}} {
		for _, n := range []int{1_000, 10_000, 100_000} {
			file, patch := benchFile(n, mode.indent)
			r := files{"big.go": file}
			b.Run(fmt.Sprintf("%s/lines=%d", mode.name, n), func(b *testing.B) {
				b.SetBytes(int64(len(file)))
				b.ReportAllocs()
				for b.Loop() {
					cs, err := ApplyText(patch, r)
					if err != nil {
						b.Fatal(err)
					}
					if len(cs) != 1 {
						b.Fatal(len(cs))
					}
				}
			})
		}
	}
}

// BenchmarkApplyUnified applies the same changes given as a unified diff
// whose line numbers are all off by 3.
func BenchmarkApplyUnified(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000} {
		file, _ := benchFile(n, "")
		diff := benchDiff(n, 3)
		r := files{"big.go": file}
		b.Run(fmt.Sprintf("lines=%d", n), func(b *testing.B) {
			b.SetBytes(int64(len(file)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ApplyText(diff, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
