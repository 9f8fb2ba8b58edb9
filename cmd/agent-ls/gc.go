package main

import (
	"os"
	"runtime"
	"runtime/debug"
	"sync"
	"time"
)

// Start-up allocates what the rest of the process keeps (config, tool
// schemas, the JSON codecs of the protocol and model types built on first
// use) and little garbage, yet the runtime's first collections come at
// 4 MiB of heap, several of them before the first answer streams: about
// 2 ms of CPU on the way to an editor's first chunk. For its first
// seconds the process collects only when the heap nears startHeapLimit;
// then, or after that first collection (a large early message must not
// make the runtime collect again and again at the limit), the usual
// pacing (GOGC=100) takes over. GOGC or GOMEMLIMIT in the environment
// leave the runtime as the user set it.
const (
	startHeapLimit = 64 << 20
	startPeriod    = 3 * time.Second
)

func deferStartupGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	deferGC(startHeapLimit, startPeriod)
}

// gcSentinel is an object whose finalizer tells that a collection ran
// (big enough not to share a tiny-allocator block with anything else).
type gcSentinel struct {
	_ [32]byte
	_ *int
}

// deferGC turns collections off below limit bytes of heap until period
// has passed or a collection has run, and returns what restores the
// pacing at once.
func deferGC(limit int64, period time.Duration) (restore func()) {
	oldLimit := debug.SetMemoryLimit(limit)
	oldPercent := debug.SetGCPercent(-1)
	restore = sync.OnceFunc(func() {
		debug.SetGCPercent(oldPercent)
		debug.SetMemoryLimit(oldLimit)
	})
	time.AfterFunc(period, restore)
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) { restore() })
	return restore
}
