package app

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// fileStat is one file of a turn's diff: its name and the lines the
// turn added to it and removed from it.
type fileStat struct {
	name                 string
	additions, deletions int
	added, deleted       bool
}

// diffStats reads a unified diff (a turn's, as turnCompleted carries it)
// into one fileStat per file, in order. Each hunk is read by the line
// counts of its header, so a changed line that reads "--- x" is counted,
// never taken for the next file.
func diffStats(diff string) []fileStat {
	var stats []fileStat
	lines := strings.Split(diff, "\n")
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		switch {
		case strings.HasPrefix(l, "--- ") && i+1 < len(lines) && strings.HasPrefix(lines[i+1], "+++ "):
			from, to := strings.TrimPrefix(l, "--- "), strings.TrimPrefix(lines[i+1], "+++ ")
			st := fileStat{name: strings.TrimPrefix(to, "b/"), added: from == "/dev/null", deleted: to == "/dev/null"}
			if st.deleted {
				st.name = strings.TrimPrefix(from, "a/")
			}
			stats = append(stats, st)
			i++
		case strings.HasPrefix(l, "@@ ") && len(stats) > 0:
			oldN, newN := hunkCounts(l)
			st := &stats[len(stats)-1]
			for oldN > 0 || newN > 0 {
				if i++; i >= len(lines) {
					break
				}
				switch c := lines[i]; {
				case strings.HasPrefix(c, "-"):
					st.deletions++
					oldN--
				case strings.HasPrefix(c, "+"):
					st.additions++
					newN--
				case strings.HasPrefix(c, `\`): // "\ No newline at end of file"
				default:
					oldN--
					newN--
				}
			}
		}
	}
	return stats
}

// hunkCounts reads the old and new line counts of a hunk header,
// "@@ -a,b +c,d @@" (a count left out is 1).
func hunkCounts(header string) (oldN, newN int) {
	f := strings.Fields(header)
	if len(f) < 3 {
		return 0, 0
	}
	count := func(r string) int {
		_, n, ok := strings.Cut(r[1:], ",")
		if !ok {
			return 1
		}
		v, _ := strconv.Atoi(n)
		return v
	}
	return count(f[1]), count(f[2])
}

// turnChanges shows the files a turn changed, each with its +N -M, on
// stderr; with --diff the diff itself follows on stdout.
func (f *termFrontend) turnChanges(diff string) {
	stats := diffStats(diff)
	if len(stats) == 0 {
		return
	}
	width := 0
	for _, st := range stats {
		width = max(width, len(textcut.VisibleLine(st.name)))
	}
	fmt.Fprintf(f.errw, "files changed: %d\n", len(stats))
	for _, st := range stats {
		note := ""
		switch {
		case st.added:
			note = " (new)"
		case st.deleted:
			note = " (deleted)"
		}
		fmt.Fprintf(f.errw, "  %-*s  +%d -%d%s\n", width, textcut.VisibleLine(st.name), st.additions, st.deletions, note)
	}
	if f.showDiff {
		f.errw.Flush()
		f.endLine()
		f.out.WriteString(f.answerText(diff))
	}
}
