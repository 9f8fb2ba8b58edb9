package main

import (
	"math"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"
)

func readMetric(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestDeferGCEndsAtTheFirstCollection: collections are off until one
// runs (here forced, at start-up when the heap nears the limit), then
// the pacing is what it was.
func TestDeferGCEndsAtTheFirstCollection(t *testing.T) {
	gogc := func() uint64 { return readMetric("/gc/gogc:percent") }
	limit := func() uint64 { return readMetric("/gc/gomemlimit:bytes") }
	beforeGOGC, beforeLimit := gogc(), limit()
	restore := deferGC(8<<20, time.Hour)
	defer restore()
	if gogc() != math.MaxUint64 || limit() != 8<<20 { // off reads as -1
		t.Fatalf("deferred: GOGC %d, limit %d; want off and 8 MiB", gogc(), limit())
	}
	for i := 0; i < 200 && gogc() != beforeGOGC; i++ {
		runtime.GC()
		time.Sleep(5 * time.Millisecond) // the finalizer runs on its own goroutine
	}
	if gogc() != beforeGOGC || limit() != beforeLimit {
		t.Errorf("after a collection: GOGC %d, limit %d; want %d and %d", gogc(), limit(), beforeGOGC, beforeLimit)
	}
}
