// Command grepbench times grep_files against ripgrep on one tree, warm
// cache, and prints the ratios.
//
//	go run ./bench/grepbench [-dir DIR] [-n RUNS]
//
// DIR defaults to $(go env GOROOT)/src.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/tools"
)

type query struct {
	name    string
	pattern string
	rgArgs  []string
}

func main() {
	dir := flag.String("dir", "", "tree to search (default: $(go env GOROOT)/src)")
	runs := flag.Int("n", 5, "timed runs per tool and query (the median is reported)")
	flag.Parse()
	if *dir == "" {
		// The go command's GOROOT: runtime.GOROOT is the one this binary
		// was built with, which need not exist here.
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err != nil {
			fmt.Fprintln(os.Stderr, "grepbench: no -dir and no go command to find GOROOT:", err)
			os.Exit(2)
		}
		*dir = filepath.Join(strings.TrimSpace(string(out)), "src")
	}

	queries := []query{
		{"literal", "func NewReader", []string{"--fixed-strings"}},
		{"regex", `func \(\w+ \*\w+\) Read[A-Z]\w*\(`, nil},
		{"regex-no-literal", `[A-Z][a-z]+[0-9]{2,}[A-Z]\w*`, nil},
		{"case-insensitive", "content-type", []string{"--fixed-strings", "-i"}},
		{"alternation-i", "todo|fixme|xxx", []string{"-i"}},
	}
	rg, rgErr := exec.LookPath("rg")
	fmt.Printf("tree: %s, GOMAXPROCS %d, median of %d warm runs\n", *dir, runtime.GOMAXPROCS(0), *runs)
	fmt.Printf("%-17s %12s %12s %8s %s\n", "query", "grep_files", "rg", "ratio", "matches (ours/rg)")
	for _, q := range queries {
		ours, n := timeOurs(*dir, q, *runs)
		if rgErr != nil {
			fmt.Printf("%-17s %12s %12s %8s %d/-\n", q.name, ours.Round(time.Millisecond), "(no rg)", "-", n)
			continue
		}
		theirs, m := timeRg(rg, *dir, q, *runs)
		fmt.Printf("%-17s %12s %12s %7.2fx %d/%d\n", q.name, ours.Round(time.Millisecond), theirs.Round(time.Millisecond), float64(ours)/float64(theirs), n, m)
	}
}

func timeOurs(dir string, q query, runs int) (time.Duration, int) {
	env := &tools.Env{Cwd: dir, Files: tools.DiskView{}, Limits: tools.OutputLimits{MaxBytes: 1 << 30, MaxLines: 1 << 30}}
	caseSensitive := !slices.Contains(q.rgArgs, "-i")
	args, _ := json.Marshal(map[string]any{"pattern": patternFor(q), "case_sensitive": caseSensitive, "limit": 2000})
	call := &tools.Call{Name: "grep_files", Type: tools.Function, Arguments: args}
	var times []time.Duration
	var out tools.Output
	for i := 0; i < runs+1; i++ { // the first run warms the cache
		start := time.Now()
		var err error
		out, err = tools.GrepFiles{}.Handle(context.Background(), env, call)
		if err != nil {
			fmt.Fprintln(os.Stderr, "grep_files:", err)
			os.Exit(1)
		}
		if i > 0 {
			times = append(times, time.Since(start))
		}
	}
	return stats.Median(times), countOurs(out.Text)
}

// patternFor turns rg's fixed-string queries into the equivalent regexp.
func patternFor(q query) string {
	if slices.Contains(q.rgArgs, "--fixed-strings") {
		return regexpQuote(q.pattern)
	}
	return q.pattern
}

func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.+*?()|[]{}^$`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// countOurs reads the total from the trailer, or counts the lines.
func countOurs(text string) int {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	for _, l := range lines {
		var shown, total int
		if _, err := fmt.Sscanf(l, "[Showed %d of %d", &shown, &total); err == nil {
			return total
		}
	}
	n := 0
	for _, l := range lines {
		if !strings.HasPrefix(l, "[") && l != "No matches found." {
			n++
		}
	}
	return n
}

func timeRg(rg, dir string, q query, runs int) (time.Duration, int) {
	args := append([]string{"--count", "--no-messages"}, q.rgArgs...)
	args = append(args, "--", q.pattern, ".")
	var times []time.Duration
	var out []byte
	for i := 0; i < runs+1; i++ {
		cmd := exec.Command(rg, args...)
		cmd.Dir = dir
		start := time.Now()
		out, _ = cmd.Output()
		if i > 0 {
			times = append(times, time.Since(start))
		}
	}
	// --count-matches prints path:count; count lines with a match instead
	// would need another run, so report matches.
	total := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var n int
		if i := strings.LastIndexByte(l, ':'); i >= 0 {
			fmt.Sscanf(l[i+1:], "%d", &n)
		}
		total += n
	}
	return stats.Median(times), total
}
