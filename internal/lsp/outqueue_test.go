package lsp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// TestOutboxBoundedWhenTheClientDoesNotRead queues what a turn with a
// command writing 1 GB would send to a client that reads nothing, and
// checks that the queue stays bounded, that every event that is not a
// delta or an output chunk is kept, that the text is all there, and that
// seq rises by one per queued event.
func TestOutboxBoundedWhenTheClientDoesNotRead(t *testing.T) {
	o := &outbox{wake: make(chan struct{}, 1)}
	seq := int64(0)
	push := func(p event.Payload) {
		seq++
		o.push(outItem{event: &event.Event{SessionID: "s", TurnID: "t", Seq: seq, Payload: p}})
	}
	push(event.TurnStarted{Prompt: "go"})
	var text strings.Builder
	for i := range 5000 {
		d := fmt.Sprintf("word%d ", i)
		text.WriteString(d)
		push(event.MessageDelta{ItemID: "m", Delta: d})
		if i%1000 == 0 {
			push(event.Plan{Explanation: fmt.Sprint(i)})
		}
	}
	push(event.ToolCall{CallID: "c", Tool: "shell"})
	chunk := strings.Repeat("x", 16<<10)
	const chunks = 1 << 16 // 1 GB
	for range chunks {
		push(event.ExecOutput{CallID: "c", Stream: "stdout", Chunk: chunk})
	}
	push(event.ExecOutput{CallID: "c", Stream: "stdout", Chunk: "the last line\n"})
	push(event.ToolResult{CallID: "c", Tool: "shell", Status: event.ToolCompleted})
	push(event.TurnCompleted{Status: event.StatusCompleted})

	queued := o.state.bytes
	o.taken(o.queue) // as the writer does when it takes the queue
	var deltas strings.Builder
	types := map[event.Type]int{}
	for i, it := range o.queue {
		ev := it.event
		if ev.Seq != int64(i+1) {
			t.Fatalf("queued event %d has seq %d", i, ev.Seq)
		}
		types[ev.Type()]++
		switch p := ev.Payload.(type) {
		case event.MessageDelta:
			deltas.WriteString(p.Delta)
		case event.ExecOutput:
			if len(p.Chunk) > maxMergedChunk+200 {
				t.Errorf("output chunk of %d bytes", len(p.Chunk))
			}
			if i == len(o.queue)-3 && (!strings.HasSuffix(p.Chunk, "the last line\n") || !strings.Contains(p.Chunk, "bytes not shown live")) {
				t.Errorf("last chunk does not end with the last line or lacks the note: ...%q", p.Chunk[len(p.Chunk)-200:])
			}
		}
	}
	if deltas.String() != text.String() {
		t.Error("the deltas joined differ from those sent")
	}
	for typ, n := range map[event.Type]int{event.TypeTurnStarted: 1, event.TypePlan: 5, event.TypeToolCall: 1, event.TypeToolResult: 1, event.TypeTurnCompleted: 1} {
		if types[typ] != n {
			t.Errorf("%d %s events queued, want %d", types[typ], typ, n)
		}
	}
	if queued > 2*coalesceAfterBytes {
		t.Errorf("queue holds %d bytes", queued)
	}
	t.Logf("%d events queued for %d sent, %d bytes", len(o.queue), seq, queued)
}

func TestCappedCountsWhatItLeavesOut(t *testing.T) {
	var c *capped
	total, pending := 0, ""
	for i := range 100 {
		chunk := strings.Repeat(string(rune('a'+i%26)), 10000) + "é"
		total += len(chunk)
		switch {
		case c != nil:
			c.add(chunk)
		case len(pending)+len(chunk) > maxMergedChunk:
			c = newCapped(pending + chunk)
		default:
			pending += chunk
		}
	}
	out := c.String()
	head, rest, _ := strings.Cut(out, "\n[... ")
	n, tail := 0, ""
	if _, err := fmt.Sscanf(rest, "%d bytes not shown live", &n); err != nil {
		t.Fatalf("note: %q", rest[:80])
	}
	_, tail, _ = strings.Cut(rest, "tool result ...]\n")
	if len(head)+n+len(tail) != total {
		t.Errorf("head %d + skipped %d + tail %d != %d written", len(head), n, len(tail), total)
	}
	if !strings.HasSuffix(out, "é") || strings.ContainsRune(out, '\uFFFD') {
		t.Error("the end is not whole")
	}
}

// TestOutboxKeepsTheLatestProgress: toward a client that reads nothing,
// a call's progress replaces the progress of the same call queued just
// before it; a progress of another call, or once the client reads, is
// kept.
func TestOutboxKeepsTheLatestProgress(t *testing.T) {
	o := &outbox{wake: make(chan struct{}, 1)}
	seq := int64(0)
	push := func(p event.Payload) {
		seq++
		o.push(outItem{event: &event.Event{SessionID: "s", TurnID: "t", Seq: seq, Payload: p}})
	}
	for i := range coalesceAfterItems {
		push(event.Plan{Explanation: fmt.Sprint(i)})
	}
	for i := range 1000 {
		push(event.ToolProgress{CallID: "a", Progress: float64(i), Total: 1000})
	}
	push(event.ToolProgress{CallID: "b", Progress: 1})
	push(event.ToolProgress{CallID: "a", Progress: 1000, Total: 1000})
	var got []event.ToolProgress
	for i, it := range o.queue {
		if it.event.Seq != int64(i+1) {
			t.Fatalf("queued event %d has seq %d", i, it.event.Seq)
		}
		if p, ok := it.event.Payload.(event.ToolProgress); ok {
			got = append(got, p)
		}
	}
	want := []event.ToolProgress{{CallID: "a", Progress: 999, Total: 1000}, {CallID: "b", Progress: 1}, {CallID: "a", Progress: 1000, Total: 1000}}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("progress queued %v, want %v", got, want)
	}
}
