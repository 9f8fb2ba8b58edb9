package patch

import (
	"fmt"
	"strings"
	"testing"
)

// benchFile returns a Go-like file of n lines, with the repetition real code
// has (closing braces, blank lines, a common statement), and an apply_patch
// patch changing one line every 200 lines with three lines of context on
// each side. indent is put before each patch line, to make the matcher fall
// back to its whitespace-insensitive pass.
func benchFile(n int, indent string) (file, patch string) {
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
	var p strings.Builder
	p.WriteString("*** Begin Patch\n*** Update File: big.go\n")
	for at := 104; at+4 < n; at += 200 {
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
		file, patch := benchFile(n, "")
		r := files{"big.go": file}
		cs, err := ApplyText(patch, r)
		if err != nil {
			b.Fatal(err)
		}
		diff := shiftHunks(cs.UnifiedDiff(), 3)
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

// shiftHunks moves every hunk header of a unified diff by d lines.
func shiftHunks(diff string, d int) string {
	lines := strings.Split(diff, "\n")
	for i, l := range lines {
		var a, b, c, e int
		if n, _ := fmt.Sscanf(l, "@@ -%d,%d +%d,%d @@", &a, &b, &c, &e); n == 4 {
			lines[i] = fmt.Sprintf("@@ -%d,%d +%d,%d @@", a+d, b, c+d, e)
		}
	}
	return strings.Join(lines, "\n")
}
