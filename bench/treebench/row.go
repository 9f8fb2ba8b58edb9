package main

import (
	"time"

	"github.com/agent-ls/agent-ls/bench/benchrow"
	"github.com/agent-ls/agent-ls/bench/stats"
)

// firstGoal is how soon grep_files with limit 1 must answer.
const firstGoal = 100 * time.Millisecond

// emitRow hands a row's medians to bench/run.sh's summary table: its
// goal is at most its peer's time (1.0x), or for the first result at
// most firstGoal.
func emitRow(rw row, ours, peer time.Duration) {
	r := benchrow.Row{Name: rw.name, Value: stats.MS(ours), Unit: "ms"}
	if len(rw.peer) > 0 && rw.peer[0] != "" && peer > 0 {
		r.Peer, r.PeerValue = rw.peer[0], stats.MS(peer)
	}
	switch {
	case rw.first:
		r.Goal, r.Verdict = "≤ 100 ms", benchrow.Verdict(ours <= firstGoal)
	case r.PeerValue > 0:
		r.Goal, r.Verdict = "≤ 1.0x", benchrow.Verdict(ours <= peer)
	}
	benchrow.Emit(r)
}
