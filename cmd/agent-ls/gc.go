package main

import (
	"math"
	"os"
	"runtime/debug"
	"time"
)

// Start-up allocates what the rest of the process keeps (config, tool
// schemas, the JSON codecs of the protocol and model types built on first
// use) and little garbage, yet the runtime's first collections come at
// 4 MiB of heap, several of them before the first answer streams: about
// 2 ms of CPU on the way to an editor's first chunk. For its first
// seconds the process collects only when the heap nears startHeapLimit;
// then the usual pacing (GOGC=100) takes over. GOGC or GOMEMLIMIT in the
// environment leave the runtime as the user set it.
const (
	startHeapLimit = 64 << 20
	startPeriod    = 3 * time.Second
)

func deferStartupGC() {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	debug.SetMemoryLimit(startHeapLimit)
	old := debug.SetGCPercent(-1)
	time.AfterFunc(startPeriod, func() {
		debug.SetGCPercent(old)
		debug.SetMemoryLimit(math.MaxInt64)
	})
}
