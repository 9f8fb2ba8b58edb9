package lsp

import (
	"github.com/agent-ls/agent-ls/internal/textcut"

	"runtime/debug"
	"sync"
	"time"

	"go.lsp.dev/protocol"
)

// Large messages (a huge document opened, a code action carrying many
// diagnostics) are allowed, but they must not keep their memory: the
// frame buffer of one is not reused (nor is a large outgoing frame's, see
// lspframe.Writer), and once the server has been quiet about them for a
// moment, or has let a large document go (didClose, or a didChange that
// replaced most of it), the Go runtime is asked to give the freed memory
// back to the system at once instead of over minutes. The collector
// itself is never tuned: no GC percent, no memory limit.
const (
	bigFrame       = 4 << 20
	releaseDelay   = time.Second
	maxDiagnostic  = 4 << 10 // bytes of one diagnostic's message put in a prompt
	maxDiagnostics = 100     // diagnostics a code action takes into its prompt
	// A turn's context items (a selection, a file) are cut to these
	// sizes: each, and all of a turn's together.
	maxContextBytes = 256 << 10
	maxContextTotal = 1 << 20
)

var (
	releaseMu    sync.Mutex
	releaseTimer *time.Timer
)

// releaseLater frees memory to the system shortly after the last large
// message.
func releaseLater() {
	releaseMu.Lock()
	defer releaseMu.Unlock()
	if releaseTimer != nil {
		releaseTimer.Reset(releaseDelay)
		return
	}
	releaseTimer = time.AfterFunc(releaseDelay, release)
}

func release() {
	debug.FreeOSMemory()
	// A request's handler may still hold the message: free again once
	// it is likely done.
	time.AfterFunc(2*releaseDelay, debug.FreeOSMemory)
}

// boundDiagnostics keeps what a code action needs of the diagnostics an
// editor sent: the first maxDiagnostics, each message cut to
// maxDiagnostic bytes. The prompt and the action's own diagnostics then
// stay small however many the editor sends.
func boundDiagnostics(diags []protocol.Diagnostic) []protocol.Diagnostic {
	if len(diags) > maxDiagnostics {
		diags = diags[:maxDiagnostics]
	}
	out := make([]protocol.Diagnostic, len(diags))
	for i, d := range diags {
		if s, ok := d.Message.(protocol.String); ok && len(s) > maxDiagnostic {
			d.Message = protocol.String(textcut.Cut(string(s), maxDiagnostic))
		}
		out[i] = d
	}
	return out
}
