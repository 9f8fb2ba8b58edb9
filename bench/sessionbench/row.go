package main

import (
	"fmt"
	"time"

	"github.com/agent-ls/agent-ls/bench/benchrow"
)

// emitResume hands a resume's median to bench/run.sh's summary table,
// against limit when there is one.
func emitResume(what string, median, limit time.Duration) {
	r := benchrow.Row{Name: what, Value: msf(median), Unit: "ms"}
	if limit > 0 {
		r.Goal, r.Verdict = fmt.Sprintf("≤ %d ms", limit.Milliseconds()), benchrow.Verdict(median <= limit)
	}
	benchrow.Emit(r)
}
