// Command treebench times agent-ls's search and listing tools (grep_files,
// glob, list_dir, called in-process) against the best tool for each job
// (rg, fd, find) on one tree, interleaved run by run so that the machine's
// load falls on both alike, and prints one table of medians with the
// ratio and the load average.
//
//	go run ./bench/treebench -dir DIR [-n RUNS]
//
// Rows whose peer is not installed print "-" for it. The grep rows beside
// rg --count run the search engine behind grep_files (internal/search)
// over every file, counting every match as rg does: grep_files itself
// stops at its limit. The grep_files rows call the tool: a rare literal
// (its default limit of 100 never reached, so every file is searched in
// path order) beside rg, and limit 1 (the first result the model sees)
// beside the time rg takes to print its first line.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/search"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// row is one comparison: our tool call and the peer's command line.
type row struct {
	name  string
	grep  *search.Query // the engine over the whole tree; else tool
	tool  tools.Handler
	args  map[string]any
	peer  []string // argv; nil: no peer
	first bool     // the peer is timed to its first line of output
}

func main() {
	dir := flag.String("dir", "", "tree to search (required)")
	runs := flag.Int("n", 10, "timed runs per row (the median is reported)")
	only := flag.String("only", "", "run only the rows whose name contains this")
	flag.Parse()
	if *dir == "" {
		fmt.Fprintln(os.Stderr, "treebench: -dir is required")
		os.Exit(2)
	}
	fd := lookFirst("fdfind", "fd")
	rows := []row{
		{name: "grep literal", grep: fullQuery("spin_lock_irqsave", true), peer: []string{"rg", "--count", "--no-messages", "-F", "spin_lock_irqsave"}},
		{name: "grep regex with literal", grep: fullQuery(`static int \w+_probe\(`, true), peer: []string{"rg", "--count", "--no-messages", `static int \w+_probe\(`}},
		{name: `grep \w+_lock\(`, grep: fullQuery(`\w+_lock\(`, true), peer: []string{"rg", "--count", "--no-messages", `\w+_lock\(`}},
		{name: "grep -i mutex_lock", grep: fullQuery("mutex_lock", false), peer: []string{"rg", "--count", "--no-messages", "-i", "mutex_lock"}},
		{name: "grep_files rare literal", tool: tools.GrepFiles{}, args: grepArgs("irq_domain_alloc_irqs_parent", true, 100), peer: []string{"rg", "--no-messages", "-F", "irq_domain_alloc_irqs_parent"}},
		{name: "glob **/*.c vs fd", tool: tools.Glob{}, args: map[string]any{"pattern": "**/*.c"}, peer: []string{fd, "--type", "f", "--glob", "*.c"}},
		{name: "glob **/*.c vs find", tool: tools.Glob{}, args: map[string]any{"pattern": "**/*.c"}, peer: []string{"find", ".", "-name", "*.c", "-type", "f"}},
		{name: "list_dir depth 3 vs fd", tool: tools.ListDir{}, args: map[string]any{"depth": 3}, peer: []string{fd, "--hidden", "--no-ignore", "--max-depth", "3"}},
		{name: "list_dir depth 3 vs find", tool: tools.ListDir{}, args: map[string]any{"depth": 3}, peer: []string{"find", ".", "-mindepth", "1", "-maxdepth", "3"}},
		{name: "grep_files limit 1: first", tool: tools.GrepFiles{}, args: grepArgs("spin_lock_irqsave", true, 1), peer: []string{"rg", "--no-messages", "-F", "spin_lock_irqsave"}, first: true},
	}
	rows = slices.DeleteFunc(rows, func(r row) bool { return !strings.Contains(r.name, *only) })
	env := &tools.Env{Cwd: *dir, Files: tools.DiskView{}, Limits: tools.OutputLimits{MaxBytes: 1 << 30, MaxLines: 1 << 30}}
	ours := make([][]sample, len(rows))
	theirs := make([][]sample, len(rows))
	load0 := stats.LoadAvg(3)
	// Run 0 warms the cache and is not counted; the order of ours and the
	// peer's alternates from run to run.
	for i := 0; i <= *runs; i++ {
		for r, rw := range rows {
			a, b := timeOurs(env, *dir, rw), timePeer(*dir, rw)
			if i%2 == 1 {
				b, a = timePeer(*dir, rw), timeOurs(env, *dir, rw)
			}
			if i > 0 {
				ours[r] = append(ours[r], a)
				theirs[r] = append(theirs[r], b)
			}
		}
	}
	fmt.Printf("tree: %s; median of %d interleaved warm runs; load average %s → %s\n", *dir, *runs, load0, stats.LoadAvg(3))
	fmt.Printf("%-28s %10s %10s %7s %10s %10s %7s  %s\n", "row", "agent-ls", "peer", "ratio", "cpu ours", "cpu peer", "ratio", "peer command")
	for r, rw := range rows {
		o, t := median(ours[r], wallOf), median(theirs[r], wallOf)
		oc, tc := median(ours[r], cpuOf), median(theirs[r], cpuOf)
		cmd := strings.Join(rw.peer, " ")
		if rw.first {
			cmd += " (to its first line; cpu not comparable)"
		}
		fmt.Printf("%-28s %10s %10s %7s %10s %10s %7s  %s\n", rw.name, ms(o), ms(t), ratio(o, t), ms(oc), ms(tc), ratio(oc, tc), cmd)
		emitRow(rw, o, t)
	}
}

func ratio(a, b time.Duration) string {
	if b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", float64(a)/float64(b))
}

func wallOf(s sample) time.Duration { return s.wall }
func cpuOf(s sample) time.Duration  { return s.cpu }

func grepArgs(pattern string, caseSensitive bool, limit int) map[string]any {
	return map[string]any{"pattern": pattern, "case_sensitive": caseSensitive, "limit": limit}
}

// sample is one timed run: wall-clock time and the CPU time (user and
// system) it took, which the machine's load disturbs less.
type sample struct{ wall, cpu time.Duration }

func fullQuery(pattern string, caseSensitive bool) *search.Query {
	return &search.Query{Pattern: pattern, CaseSensitive: caseSensitive, Limit: 2000, MaxLineBytes: 500, MaxFileSize: tools.MaxGrepFileSize}
}

// noDocs is an editor with nothing open.
type noDocs struct{}

func (noDocs) OpenPaths() []string            { return nil }
func (noDocs) Document(string) (string, bool) { return "", false }

func timeOurs(env *tools.Env, dir string, rw row) sample {
	if rw.grep != nil {
		cpu0 := stats.SelfCPU()
		start := time.Now()
		g, err := search.NewGrep(*rw.grep, noDocs{})
		if err == nil {
			err = g.Tree(context.Background(), dir, dir)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "treebench: %s: %v\n", rw.name, err)
			os.Exit(1)
		}
		_ = g.Result()
		return sample{time.Since(start), stats.SelfCPU() - cpu0}
	}
	args, _ := json.Marshal(rw.args)
	call := &tools.Call{Name: rw.tool.Spec().Name, Type: tools.Function, Arguments: args}
	cpu0 := stats.SelfCPU()
	start := time.Now()
	if _, err := rw.tool.Handle(context.Background(), env, call); err != nil {
		fmt.Fprintf(os.Stderr, "treebench: %s: %v\n", rw.name, err)
		os.Exit(1)
	}
	return sample{time.Since(start), stats.SelfCPU() - cpu0}
}

// timePeer runs the peer's command in dir to its end (or to its first line
// of output), 0 when it is not installed.
func timePeer(dir string, rw row) sample {
	if len(rw.peer) == 0 || rw.peer[0] == "" {
		return sample{}
	}
	path, err := exec.LookPath(rw.peer[0])
	if err != nil {
		return sample{}
	}
	cmd := exec.Command(path, rw.peer[1:]...)
	cmd.Dir = dir
	out, err := cmd.StdoutPipe()
	if err != nil {
		return sample{}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return sample{}
	}
	br := bufio.NewReaderSize(out, 1<<20)
	var took time.Duration
	if rw.first {
		_, _ = br.ReadString('\n')
		took = time.Since(start)
		_ = cmd.Process.Kill()
		_, _ = br.WriteTo(discard{})
	} else {
		_, _ = br.WriteTo(discard{})
		took = time.Since(start)
	}
	_ = cmd.Wait()
	if !rw.first {
		took = time.Since(start)
	}
	return sample{took, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()}
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func lookFirst(names ...string) string {
	for _, n := range names {
		if _, err := exec.LookPath(n); err == nil {
			return n
		}
	}
	return ""
}

func median(ss []sample, of func(sample) time.Duration) time.Duration {
	ts := make([]time.Duration, 0, len(ss))
	for _, s := range ss {
		ts = append(ts, of(s))
	}
	return stats.Median(ts)
}

func ms(d time.Duration) string {
	if d <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ms", stats.MS(d))
}
