package lsp

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

// The memory tests measure the live heap (HeapAlloc after a collection)
// and what a step allocates (TotalAlloc), never time. The editor fake
// runs in the same process and keeps its own copy of each open document,
// which the bounds count.

const mib = 1 << 20

// liveHeap is the heap still reachable: HeapAlloc after full
// collections, two, since what a sync.Pool holds goes at the second.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// allocated is how many bytes the process has allocated so far.
func allocated() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.TotalAlloc
}

// heapNow is HeapAlloc as the collector left it: live data and the
// garbage it has not collected yet.
func heapNow() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// growEditorBuffer has the editor fake send a message of n bytes, which
// the server ignores: the fake's connection (jsonrpc2's header stream)
// keeps a write buffer as large as the largest message it sent, for good,
// and that buffer belongs in the baseline, not to the server.
func growEditorBuffer(h *applyHarness, n int) {
	h.t.Helper()
	if err := h.ed.Notify(h.ctx, "agent-ls/test/ignored", map[string]string{"pad": strings.Repeat(" ", n)}); err != nil {
		h.t.Fatal(err)
	}
	h.sync()
}

// bigDocument is size bytes of 100-byte lines.
func bigDocument(size int) string {
	line := strings.Repeat("x", 99) + "\n"
	return strings.Repeat(line, size/len(line))
}

// A large open document costs its text once in the server; a code action
// over it, and the turn it starts, copy only the bounded context they send
// the agent, and once the document is closed its memory is no longer
// reachable (the turn's context does not keep the document alive).
func TestLargeDocumentCodeActionMemory(t *testing.T) {
	const size = 50_000_000 / raceScale
	h := newApplyHarness(t, editor.Options{})
	growEditorBuffer(h, size+size/4)
	base := liveHeap()
	docURI := h.uri("big.txt")
	if err := h.ed.Open(h.ctx, docURI, "text", bigDocument(size)); err != nil {
		t.Fatal(err)
	}
	h.sync()
	open := liveHeap()
	t.Logf("live heap: idle %d MiB, %d MB document open %d MiB", base/mib, size/1_000_000, open/mib)
	// The editor's copy and the store's, with its line index.
	if open > base+2*size+size/5 {
		t.Errorf("live heap with the document open is %d MiB over idle, want at most %d MiB (two copies and an index)", (open-base)/mib, (2*size+size/5)/mib)
	}

	lines := uint32(size / 100)
	before := allocated()
	for _, rng := range []protocol.Range{
		{Start: protocol.Position{Line: lines / 2}, End: protocol.Position{Line: lines / 2}}, // the cursor
		{End: protocol.Position{Line: lines}},                                                // everything selected
		{Start: protocol.Position{Line: 1000}, End: protocol.Position{Line: 1100}},
	} {
		runExplainAction(t, h, docURI, rng)
	}
	spent := allocated() - before
	afterAction := liveHeap()
	t.Logf("three code actions and their turns allocated %d MiB; live heap after %d MiB", spent/mib, afterAction/mib)
	if spent > 4*mib+6*maxContextBytes {
		t.Errorf("three code actions over a %d MB document allocated %d MiB: the document was copied", size/1_000_000, spent/mib)
	}
	if afterAction > open+mib+3*2*maxContextBytes {
		t.Errorf("the turns' context keeps %d MiB alive", (afterAction-open)/mib)
	}
	h.agent.mu.Lock()
	turns := h.agent.turns
	h.agent.mu.Unlock()
	for _, in := range turns {
		if n := len(in.Context[0].Text); n > maxContextBytes+256 {
			t.Errorf("a turn's context carries %d bytes of the document, more than %d", n, maxContextBytes)
		}
	}

	if err := h.ed.Close(h.ctx, docURI); err != nil {
		t.Fatal(err)
	}
	h.sync()
	closed := liveHeap()
	t.Logf("live heap after didClose %d MiB", closed/mib)
	if closed > base+2*mib+3*2*maxContextBytes {
		t.Errorf("after didClose %d MiB are still live over idle, want the document gone", (closed-base)/mib)
	}
}

// runExplainAction asks for the code actions at rng and runs the first
// one (Agent: Explain this) as the editor would.
func runExplainAction(t *testing.T, h *applyHarness, docURI string, rng protocol.Range) {
	t.Helper()
	var actions []protocol.CommandOrCodeAction
	if err := h.ed.Request(h.ctx, protocol.MethodTextDocumentCodeAction, &protocol.CodeActionParams{
		TextDocument: protocol.TextDocumentIdentifier{URI: uri.URI(docURI)},
		Range:        rng,
	}, &actions); err != nil {
		t.Fatal(err)
	}
	res := runAction(t, h.harness, actions[0])
	h.agent.complete(res.SessionID, res.TurnID, event.StatusCompleted)
}

// Many large whole-document changes leave one text live, and the heap
// between collections stays within a few messages of it: what each
// change allocates is collected as the server goes (the collector is
// never switched off, whenever the changes come).
func TestLargeDidChangesKeepTheHeapBounded(t *testing.T) {
	const size, changes = 2 * mib, 100 / raceScale
	h := newApplyHarness(t, editor.Options{})
	docURI := h.uri("big.txt")
	if err := h.ed.Open(h.ctx, docURI, "text", "small\n"); err != nil {
		t.Fatal(err)
	}
	growEditorBuffer(h, size+size/4)
	base := liveHeap()
	before := allocated()
	var peak uint64
	for i := range changes {
		text := strings.Repeat(string(rune('a'+i%26)), size-1) + "\n"
		if err := h.ed.Change(h.ctx, docURI, editor.Change{Text: text}); err != nil {
			t.Fatal(err)
		}
		if i%10 == 9 {
			h.sync()
		}
		peak = max(peak, heapNow())
	}
	h.sync()
	perChange := (allocated() - before) / changes
	live := liveHeap()
	t.Logf("each change allocated %.1f MiB", float64(perChange)/mib)
	// The test makes the text, the editor fake encodes it (about twice
	// its size), the server decodes it (unquoted once, then a string):
	// about five times in all.
	if perChange > 8*size {
		t.Errorf("each change of %d MiB allocated %.1f MiB: the server decodes a text into many copies", size/mib, float64(perChange)/mib)
	}
	t.Logf("%d changes of %d MiB: live heap %d → %d MiB, at most %d MiB between collections", changes, size/mib, base/mib, live/mib, peak/mib)
	// The editor's text, the store's, and the buffer the server reads
	// frames of up to bigFrame into.
	if live > base+3*size+mib {
		t.Errorf("live heap after the changes is %d MiB over its start", (live-base)/mib)
	}
	if peak > 2*base+32*size {
		t.Errorf("the heap reached %d MiB over %d changes of %d MiB from %d MiB live: garbage is not being collected", peak/mib, changes, size/mib, base/mib)
	}
}

// A selection larger than maxContextBytes reaches the agent cut after its
// last whole line within the limit, with the lines it spans and a note
// saying what was left out; a turn's items share maxContextTotal.
func TestTurnContextIsCut(t *testing.T) {
	h := newApplyHarness(t, editor.Options{})
	text := bigDocument(2 * maxContextTotal) // 100-byte lines
	h.open("big.txt", text)
	lines := len(text) / 100
	whole := map[string]any{"uri": h.uri("big.txt")}
	h.startTurn(map[string]any{"prompt": "explain", "context": []any{whole, whole, whole, whole, whole}})
	in := h.agent.lastTurn()
	total := 0
	for i, c := range in.Context {
		total += len(c.Text)
		body, note, ok := strings.Cut(c.Text, "\n[cut by agent-ls: ")
		if !ok || !strings.HasSuffix(note, fmt.Sprintf("to line %d, were left out; read the file for them]\n", lines)) {
			t.Fatalf("context[%d] ends %q", i, c.Text[max(0, len(c.Text)-120):])
		}
		if len(body)%100 != 0 || c.StartLine != 1 || c.EndLine != len(body)/100 {
			t.Errorf("context[%d]: %d bytes, lines %d-%d", i, len(body), c.StartLine, c.EndLine)
		}
	}
	if len(in.Context) != 5 || len(in.Context[0].Text) > maxContextBytes+200 || total > maxContextTotal+5*200 {
		t.Errorf("%d items of %d bytes in all, the first %d", len(in.Context), total, len(in.Context[0].Text))
	}
}
