package mcp

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
)

// maxServerLog bounds what one server's own doings (its notifications,
// requests, malformed messages) put in agent-ls's log per window: a
// tools/call, or the time between two. A server that floods them would
// otherwise fill the log file, or the editor's output panel, without end.
const maxServerLog = 1 << 20

// floodLog logs what a server caused within maxServerLog bytes per
// window; past that it counts what it drops, and the window's end says
// how much in one line.
type floodLog struct {
	log *slog.Logger

	mu           sync.Mutex
	used         int
	dropped      int
	droppedBytes int
}

// logf logs msg with args at level when the window has room for it.
func (f *floodLog) logf(level slog.Level, msg string, args ...any) {
	if !f.log.Enabled(context.Background(), level) {
		return
	}
	size := len(msg) + 50 // the time, the level, quotes and keys
	for _, a := range args {
		size += len(fmt.Sprint(a)) + 1
	}
	f.mu.Lock()
	if f.used+size > maxServerLog {
		f.dropped++
		f.droppedBytes += size
		f.mu.Unlock()
		return
	}
	f.used += size
	f.mu.Unlock()
	f.log.Log(context.Background(), level, msg, args...)
}

// window ends the current window (saying what it dropped, if anything)
// and starts the next; what names the window that ends.
func (f *floodLog) window(what string) {
	f.mu.Lock()
	n, b := f.dropped, f.droppedBytes
	f.used, f.dropped, f.droppedBytes = 0, 0, 0
	f.mu.Unlock()
	if n > 0 {
		f.log.Warn(fmt.Sprintf("MCP server: %d more log lines (about %s) it caused %s were dropped, over the bound of %s",
			n, sizeOf(b), what, sizeOf(maxServerLog)))
	}
}

func sizeOf(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%d KB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
