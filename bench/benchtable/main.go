// Command benchtable prints the summary of a bench/run.sh run: the rows
// the bench programs appended to one file (see bench/benchrow) as one
// table, each with agent-ls's figure, its peer's beside it and their
// ratio, the goal with PASS or FAIL, and the machine's load average when
// the row was measured.
//
//	go run ./bench/benchtable ROWS-FILE
package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/agent-ls/agent-ls/bench/benchrow"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: benchtable ROWS-FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	defer f.Close()
	rows, err := benchrow.Read(f)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	render(os.Stdout, rows)
}

var header = []string{"row", "agent-ls", "peer", "peer value", "ratio", "goal", "", "load"}

// render writes rows as a table whose columns are as wide as their
// widest cell.
func render(w io.Writer, rows []benchrow.Row) {
	cells := [][]string{header}
	for _, r := range rows {
		cells = append(cells, []string{r.Name, value(r.Value, r.Unit), dash(r.Peer), peerValue(r), ratio(r), dash(r.Goal), r.Verdict, r.Load})
	}
	widths := make([]int, len(header))
	for _, line := range cells {
		for i, c := range line {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	for _, line := range cells {
		var b strings.Builder
		for i, c := range line {
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if i == 1 || i == 3 || i == 4 { // figures right-aligned
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
			if i < len(line)-1 {
				b.WriteString("  ")
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func peerValue(r benchrow.Row) string {
	if r.Peer == "" || r.PeerValue <= 0 {
		return "-"
	}
	return value(r.PeerValue, r.Unit)
}

// ratio is agent-ls's figure over its peer's.
func ratio(r benchrow.Row) string {
	if r.Peer == "" || r.PeerValue <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", r.Value/r.PeerValue)
}

// value formats a figure in its unit: milliseconds to two decimals
// under 10, to one above; other units to whole numbers.
func value(v float64, unit string) string {
	switch {
	case unit == "ms" && v < 10:
		return fmt.Sprintf("%.2f ms", v)
	case unit == "ms":
		return fmt.Sprintf("%.1f ms", v)
	case unit == "":
		return fmt.Sprintf("%.4g", v)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}
