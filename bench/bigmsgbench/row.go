package main

import "github.com/agent-ls/agent-ls/bench/benchrow"

// emit hands a figure to bench/run.sh's summary table, with its goal.
func emit(name string, value float64, unit, goal string, ok bool) {
	benchrow.Emit(benchrow.Row{Name: name, Value: value, Unit: unit, Goal: goal, Verdict: benchrow.Verdict(ok)})
}
