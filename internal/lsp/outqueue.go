package lsp

import (
	"fmt"
	"unicode/utf8"

	"github.com/agent-ls/agent-ls/internal/event"
)

// The outbox's queue is bounded toward a client that reads slowly or not
// at all: once it holds coalesceAfterItems items or coalesceAfterBytes
// bytes, a text delta or output chunk joins the same stream's item at its
// end instead of queueing behind it (a call's progress replaces its
// progress just queued), and an output chunk grown past
// maxMergedChunk keeps its beginning and end with a note of what was left
// out between (the whole output is in the tool result). Other events are
// never merged or dropped. Sources bound what they send (a command's live
// output is bounded in tools), so the queue stays within a few of these
// bounds. Each client-facing seq is the agent's less the events of its
// session merged away before it: the client still sees seq rise by one.
const (
	coalesceAfterItems = 64
	coalesceAfterBytes = 256 << 10
	maxMergedChunk     = 128 << 10
)

// queueState is the outbox's accounting of its queue, guarded by its mu.
type queueState struct {
	bytes int
	// merged counts, per session, the events merged into earlier ones.
	merged map[string]int64
}

// enqueue adds it to the queue, or merges it into the last item when the
// queue is behind. o.mu is held.
func (o *outbox) enqueue(it outItem) {
	if it.event != nil {
		if o.state.merged == nil {
			o.state.merged = make(map[string]int64)
		}
		if o.behind() && o.merge(it.event) {
			o.state.merged[it.event.SessionID]++
			return
		}
		it.event.Seq -= o.state.merged[it.event.SessionID]
		o.state.bytes += eventSize(it.event)
	}
	o.queue = append(o.queue, it)
}

func (o *outbox) behind() bool {
	return len(o.queue) >= coalesceAfterItems || o.state.bytes >= coalesceAfterBytes
}

// taken resets the accounting when the writer takes the whole queue as
// batch, and gives capped output chunks their final text.
func (o *outbox) taken(batch []outItem) {
	o.state.bytes = 0
	for _, it := range batch {
		if it.capped != nil {
			l := it.event.Payload.(event.ExecOutput)
			l.Chunk = it.capped.String()
			it.event.Payload = l
		}
	}
}

func (o *outbox) itemSize(i int) int {
	it := o.queue[i]
	if it.capped != nil {
		return eventSize(it.event) + len(it.capped.head) + len(it.capped.ring)
	}
	return eventSize(it.event)
}

// merge joins ev into the last queued item if both carry the same stream
// of text.
func (o *outbox) merge(ev *event.Event) bool {
	if len(o.queue) == 0 {
		return false
	}
	last := o.queue[len(o.queue)-1].event
	if last == nil || last.SessionID != ev.SessionID || last.TurnID != ev.TurnID {
		return false
	}
	before := o.itemSize(len(o.queue) - 1)
	switch p := ev.Payload.(type) {
	case event.MessageDelta:
		l, ok := last.Payload.(event.MessageDelta)
		if !ok || l.ItemID != p.ItemID {
			return false
		}
		l.Delta += p.Delta
		last.Payload = l
	case event.ReasoningDelta:
		l, ok := last.Payload.(event.ReasoningDelta)
		if !ok || l.ItemID != p.ItemID {
			return false
		}
		l.Delta += p.Delta
		last.Payload = l
	case event.ToolProgress:
		// Only the latest progress of a call matters.
		l, ok := last.Payload.(event.ToolProgress)
		if !ok || l.CallID != p.CallID {
			return false
		}
		last.Payload = p
	case event.ExecOutput:
		l, ok := last.Payload.(event.ExecOutput)
		if !ok || l.CallID != p.CallID || l.Stream != p.Stream {
			return false
		}
		item := &o.queue[len(o.queue)-1]
		if item.capped != nil {
			item.capped.add(p.Chunk)
		} else if l.Chunk += p.Chunk; len(l.Chunk) > maxMergedChunk {
			item.capped = newCapped(l.Chunk)
			l.Chunk = ""
		}
		last.Payload = l
	default:
		return false
	}
	o.state.bytes += o.itemSize(len(o.queue)-1) - before
	return true
}

// capped is a merged output chunk grown past maxMergedChunk: its
// beginning, its last cappedTail bytes so far (a ring), and how many
// bytes lie between.
type capped struct {
	head    string
	ring    []byte
	pos     int
	skipped int64
}

const cappedTail = maxMergedChunk / 4

func newCapped(chunk string) *capped {
	head := chunk[:runeStartBefore(chunk, maxMergedChunk/2)]
	c := &capped{head: head, ring: make([]byte, 0, cappedTail)}
	c.add(chunk[len(head):])
	return c
}

// add appends output, keeping only the last cappedTail bytes.
func (c *capped) add(chunk string) {
	for len(chunk) > 0 {
		if len(c.ring) < cappedTail {
			n := min(cappedTail-len(c.ring), len(chunk))
			c.ring = append(c.ring, chunk[:n]...)
			chunk = chunk[n:]
			continue
		}
		n := copy(c.ring[c.pos:], chunk)
		c.skipped += int64(n)
		c.pos = (c.pos + n) % cappedTail
		chunk = chunk[n:]
	}
}

// String is the chunk the client gets: beginning, a note of what was left
// out, end (from a character start).
func (c *capped) String() string {
	tail := string(c.ring[c.pos:]) + string(c.ring[:c.pos])
	skipped := c.skipped
	for len(tail) > 0 && !utf8.RuneStart(tail[0]) { // the middle of a character
		skipped++
		tail = tail[1:]
	}
	return c.head + fmt.Sprintf("\n[... %d bytes not shown live: the client fell behind; the full output is summarised in the tool result ...]\n", skipped) + tail
}

// runeStartBefore moves i back to the start of the character it is in.
func runeStartBefore(s string, i int) int {
	for i > 0 && i < len(s) && !utf8.RuneStart(s[i]) {
		i--
	}
	return i
}

// eventSize approximates the bytes an event holds.
func eventSize(ev *event.Event) int {
	const header = 128
	switch p := ev.Payload.(type) {
	case event.MessageDelta:
		return header + len(p.Delta)
	case event.ReasoningDelta:
		return header + len(p.Delta)
	case event.ExecOutput:
		return header + len(p.Chunk)
	case event.ToolProgress:
		return header + len(p.Message)
	case event.Message:
		return header + len(p.Text)
	case event.ToolResult:
		return header + len(p.Output)
	case event.FileChange:
		return header + len(p.Diff)
	case event.TurnCompleted:
		return header + len(p.Diff) + len(p.LastMessage)
	}
	return header
}
