// Command sessionbench measures kept sessions: how long a fresh server
// takes to bring back a session of 1,000 turns, over LSP
// (agent/resumeSession: the record read, the session restored, its
// history items in the answer) and over ACP (session/load: the
// conversation replayed as updates, then the answer), the same for a
// session of 10,000 turns compacted as agent-ls compacts, and what
// recording a turn costs at turn 1,000 and once resumed, next to a new
// record's first turns (-append: only that).
//
//	go run ./bench/sessionbench -bin bin/agent-ls [-turns 1000] [-big 10000] [-runs 10] [-keep] [-append]
//
// The sessions are written through the same store the server records
// with, turn by turn as a working session would have it: a prompt,
// reasoning, a command with its output, a patch with its diff, an
// answer, usage. Both protocols are spoken directly (framed or line
// JSON-RPC), so the time to the answer (its last byte read) is the
// server's and the pipe's; the time to the answer decoded with
// encoding/json is printed beside it. The ceiling (200 ms to the answer
// for 1,000 turns) is printed as PASS or FAIL, never as an exit status.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
)

// ceiling is the longest a resume of -turns turns may take, request to
// answer.
const ceiling = 200 * time.Millisecond

// redrawn is how many history items the benchmark's turn has: turn
// started, reasoning, two tool calls with their results, a file change,
// the answer, turn completed (usage is not redrawn).
const redrawn = 9

// keepState: the state directory is left for the user.
var keepState bool

func main() {
	bin := flag.String("bin", "bin/agent-ls", "the agent-ls binary")
	turns := flag.Int("turns", 1000, "turns in the session resumed against the ceiling")
	big := flag.Int("big", 10000, "turns in the long session (compacted every 100 turns); 0 skips it")
	runs := flag.Int("runs", 10, "server starts for each protocol, one resume each (a third as many for the long session)")
	flag.BoolVar(&keepState, "keep", false, "keep the sessions written (their directory is printed), to profile a resume of them")
	appendOnly := flag.Bool("append", false, "measure only what recording a turn costs (no server is started; -bin is not used)")
	flag.Parse()
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	if err := run(*bin, *turns, *big, *runs, *appendOnly); err != nil {
		fmt.Fprintln(os.Stderr, "sessionbench:", err)
		os.Exit(1)
	}
}

func run(bin string, turns, big, runs int, appendOnly bool) error {
	state, err := os.MkdirTemp("", "sessionbench-")
	if err != nil {
		return err
	}
	if keepState {
		fmt.Printf("the sessions are kept in %s\n", state)
	} else {
		defer os.RemoveAll(state)
	}
	ws := filepath.Join(state, "workspace")
	if err := os.Mkdir(ws, 0o755); err != nil {
		return err
	}
	fmt.Printf("load average before: %s\n", stats.LoadAvg(3))
	if appendOnly {
		err := appendCost(state, ws, turns)
		fmt.Printf("load average after: %s\n", stats.LoadAvg(3))
		return err
	}
	rec, err := record(state, ws, "s-sessionbench", turns, 0)
	if err != nil {
		return err
	}
	if err := resumeRows(bin, state, ws, rec, 0, runs, ceiling); err != nil {
		return err
	}
	// After the resumes, on records of its own.
	if err := appendCost(state, ws, turns); err != nil {
		return err
	}
	if big > 0 {
		long, err := record(state, ws, "s-sessionbench-long", big, 100)
		if err != nil {
			return err
		}
		if err := resumeRows(bin, state, ws, long, big/100, max(1, runs/3), 0); err != nil {
			return err
		}
	}
	fmt.Printf("load average after: %s\n", stats.LoadAvg(3))
	fmt.Println("   (times are the client's: from the request to the answer's last byte read (ACP: the replayed updates before it), and to the answer decoded with encoding/json, its items left raw;")
	fmt.Println("    the ceiling is on the first; on a loaded machine they grow, the server's CPU time much less)")
	return nil
}

// appendRounds is how many times appendCost measures the append cost,
// each time on records of its own.
const appendRounds = 5

// appendCost prints what recording a turn costs in a record of turns
// turns (at its end, and once resumed) next to a young record's first
// turns, alternated turn by turn: the record is only appended to, so
// the cost must not grow with it.
func appendCost(state, ws string, turns int) error {
	const window = 50
	if turns < 2*window {
		return nil
	}
	var young, last, resumed []time.Duration
	var bytes int64
	var ratios []string
	for r := range appendRounds {
		y, l, res, b, err := appendRound(state, ws, r, turns, window)
		if err != nil {
			return fmt.Errorf("recording turns: %w", err)
		}
		young, last, resumed, bytes = append(young, y...), append(last, l...), append(resumed, res...), b
		ratios = append(ratios, fmt.Sprintf("%.2f/%.2f", float64(stats.Median(l))/float64(stats.Median(y)), float64(stats.Median(res))/float64(stats.Median(y))))
	}
	first, end, again := stats.Median(young), stats.Median(last), stats.Median(resumed)
	verdict := "PASS"
	if float64(max(end, again)) > 1.5*float64(first) {
		verdict = "FAIL"
	}
	fmt.Printf("recording a turn (%d lines), medians over %d rounds: a new record's turns 1-%d %.1f µs (%d turns); a %.1f MiB record's turns %d-%d %.1f µs (%d), resumed (turns %d-%d) %.1f µs (%d)  %s (ceiling: 1.5x the new record's)\n",
		17, appendRounds, window, usf(first), len(young), float64(bytes)/(1<<20), turns-window+1, turns, usf(end), len(last), turns+1, turns+window, usf(again), len(resumed), verdict)
	fmt.Printf("   (each round writes a record of %d turns; its last %d turns, and %d more once it is read back and resumed, alternate turn by turn with the first %d of a new session, after %d turns written:\n",
		turns, window, window, window, turns-window)
	fmt.Printf("    no side is a cold start, and the machine's moments fall on both; per round, the long record's medians over the new one's: %s)\n", strings.Join(ratios, " "))
	return nil
}

// resumeRows resumes rec through fresh servers, runs times over each
// protocol, interleaved, and prints a row for each: against limit, or,
// when limit is 0, that it works.
func resumeRows(bin, state, ws string, rec recorded, compactions, runs int, limit time.Duration) error {
	want := len(rec.turns)*redrawn + compactions
	var lsp, acp []timing
	for range runs {
		t, err := resumeLSP(bin, state, ws, rec.id)
		if err != nil {
			return fmt.Errorf("agent/resumeSession: %w", err)
		}
		if t.items != want {
			return fmt.Errorf("agent/resumeSession of %d turns answered %d history items, not %d", len(rec.turns), t.items, want)
		}
		lsp = append(lsp, t)
		t, err = loadACP(bin, state, ws, rec.id)
		if err != nil {
			return fmt.Errorf("session/load: %w", err)
		}
		if t.items < want/2 {
			return fmt.Errorf("session/load of %d turns replayed %d updates", len(rec.turns), t.items)
		}
		acp = append(acp, t)
	}
	what := fmt.Sprintf("%d turns (%.1f MiB record", len(rec.turns), float64(rec.bytes)/(1<<20))
	if compactions > 0 {
		what += fmt.Sprintf(", %d compactions", compactions)
	}
	what += ")"
	row("agent/resumeSession of "+what, "items", lsp, limit)
	row("session/load (ACP) of "+what, "updates", acp, limit)
	return nil
}

// row prints the median, the maximum and the median server CPU time of
// ts, with the verdict.
func row(what, unit string, ts []timing, limit time.Duration) {
	took := make([]time.Duration, len(ts))
	decoded := make([]time.Duration, len(ts))
	cpu := make([]time.Duration, len(ts))
	for i, t := range ts {
		took[i], decoded[i], cpu[i] = t.took, t.decoded, t.cpu
	}
	slices.Sort(took)
	slices.Sort(decoded)
	slices.Sort(cpu)
	med := took[len(took)/2]
	verdict := "PASS (it works; no ceiling)"
	if limit > 0 {
		verdict = fmt.Sprintf("PASS (ceiling %d ms)", limit.Milliseconds())
		if med > limit {
			verdict = fmt.Sprintf("FAIL (ceiling %d ms)", limit.Milliseconds())
		}
	}
	fmt.Printf("%s, fresh server, to the answer: median %.1f ms  max %.1f ms  (decoded by the client: median %.1f ms)  server CPU median %.1f ms  (%d %s, %d runs)  %s\n",
		what, msf(med), msf(took[len(took)-1]), msf(decoded[len(decoded)/2]), msf(cpu[len(cpu)/2]), ts[0].items, unit, len(ts), verdict)
	emitResume(what, med, limit)
}

func msf(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
func usf(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1000 }
