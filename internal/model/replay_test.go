package model

import (
	"context"
	"slices"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

func TestReplayUnit(t *testing.T) {
	type delta struct {
		pos  int
		text string
	}
	tests := []struct {
		name     string
		first    []delta // deltas of attempt 1
		second   []delta // deltas of attempt 2
		want     string  // text delivered for position 0
		diverged bool
	}{
		{"identical replay", []delta{{0, "Hello, "}, {0, "world"}}, []delta{{0, "Hello, "}, {0, "world"}}, "Hello, world", false},
		{"shorter replay", []delta{{0, "Hello, "}, {0, "world"}}, []delta{{0, "Hel"}}, "Hello, world", false},
		{"replay goes further", []delta{{0, "Hello"}}, []delta{{0, "Hello"}, {0, ", world"}}, "Hello, world", false},
		{"delta straddles the boundary", []delta{{0, "Hel"}, {0, "lo"}}, []delta{{0, "H"}, {0, "ello, wo"}, {0, "rld"}}, "Hello, world", false},
		{"divergent replay", []delta{{0, "Hello, "}}, []delta{{0, "Hi"}, {0, " there"}}, "Hello, ", true},
		{"further in the next delta", []delta{{0, "Hello"}}, []delta{{0, "Hello"}, {0, "!"}, {0, "?"}}, "Hello!?", false},
		{"further within one delta", []delta{{0, "ab"}}, []delta{{0, "abc"}, {0, "d"}}, "abcd", false},
		{"diverges inside a straddling delta", []delta{{0, "abc"}}, []delta{{0, "abX"}, {0, "d"}}, "abc", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var rec recorder
			rp := newReplay(rec.emit, "n")
			for _, d := range tt.first {
				rp.delta(rp.item(d.pos, ItemMessage, "msg_a"), TextDelta, d.text)
			}
			rp.retry()
			for _, d := range tt.second {
				rp.delta(rp.item(d.pos, ItemMessage, "msg_b"), TextDelta, d.text)
			}
			if got := rec.deltas(TextDelta, "msg_a"); got != tt.want {
				t.Errorf("delivered %q, want %q", got, tt.want)
			}
			if got := rec.deltaItems(TextDelta); len(got) != 1 {
				t.Errorf("deltas delivered for items %v, want only msg_a", got)
			}
			if got := rp.slots[0].diverged; got != tt.diverged {
				t.Errorf("diverged = %v, want %v", got, tt.diverged)
			}
		})
	}
}

func TestReplayIDs(t *testing.T) {
	var rec recorder
	rp := newReplay(rec.emit, "n")
	msg := rp.item(0, ItemMessage, "msg_1")
	call := rp.item(1, ItemFunctionCall, "fc_1")
	rp.done(msg, Item{Type: ItemMessage, Text: "hi"})
	rp.retry()

	// Same position and kind: the first attempt's id.
	if s := rp.item(0, ItemMessage, "msg_2"); s.id != "msg_1" {
		t.Errorf("retried message id %q, want msg_1", s.id)
	}
	// Same position, another kind: its own id.
	if s := rp.item(1, ItemReasoning, "rs_2"); s.id != "rs_2" || s == call {
		t.Errorf("kind change kept id %q", s.id)
	}
	// A new position keeps its own id, unless it collides.
	if s := rp.item(2, ItemFunctionCall, "msg_1"); s.id == "msg_1" || s.id == "" {
		t.Errorf("colliding id not replaced: %q", s.id)
	}
	if s := rp.item(3, ItemFunctionCall, ""); s.id == "" {
		t.Error("no id made for an item without one")
	}

	// ItemDone: once for an identical item, again when it changed.
	rp.done(rp.item(0, ItemMessage, "msg_2"), Item{Type: ItemMessage, ID: "msg_2", Text: "hi"})
	if n := len(rec.of(ItemDone)); n != 1 {
		t.Errorf("%d ItemDone events after an identical replay, want 1", n)
	}
	rp.done(rp.item(0, ItemMessage, "msg_2"), Item{Type: ItemMessage, ID: "msg_2", Text: "hello"})
	done := rec.of(ItemDone)
	if len(done) != 2 || done[1].ItemID != "msg_1" || done[1].Item.ID != "msg_1" || done[1].Item.Text != "hello" {
		t.Errorf("ItemDone events %+v", done)
	}
}

// firstMsgID is the id the fake gives the first item of its first reply.
const firstMsgID = "msg_1_0"

// Responses events of a reply with one message of n chunks: created,
// in_progress, output_item.added, content_part.added (4), the deltas,
// output_text.done, content_part.done, output_item.done, completed.
func deltasEnd(n int) int { return 4 + n }

func TestReplayIdenticalAfterRetry(t *testing.T) {
	msg := fakemodel.Message("Hello, ", "world", "!")
	// Cut after output_item.done: everything was delivered, the retry
	// replays it all.
	srv := newFake(t, fakemodel.Step{
		Failures: []fakemodel.Failure{fakemodel.DisconnectAfter(deltasEnd(3) + 3)},
		Reply:    fakemodel.Reply{Items: []fakemodel.Item{msg}},
	})
	c := newClient(t, srv, WireResponses)
	var rec recorder
	resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.deltas(TextDelta, firstMsgID); got != "Hello, world!" {
		t.Errorf("delivered %q", got)
	}
	if got := rec.deltaItems(TextDelta); len(got) != 1 {
		t.Errorf("deltas for items %v", got)
	}
	if n := len(rec.of(ItemDone)); n != 1 {
		t.Errorf("%d ItemDone events, want 1", n)
	}
	if n := len(rec.of(Retrying)); n != 1 {
		t.Errorf("%d Retrying events, want 1", n)
	}
	if len(resp.Output) != 1 || resp.Output[0].ID != firstMsgID || resp.Output[0].Text != "Hello, world!" {
		t.Errorf("output %+v", resp.Output)
	}
	if resp.ID != "resp_2" {
		t.Errorf("response id %q, want the retried attempt's", resp.ID)
	}
}

func TestReplayGoesFurther(t *testing.T) {
	for _, wire := range []string{WireResponses, WireChat} {
		t.Run(wire, func(t *testing.T) {
			// The first attempt delivers "Hello" and dies; the retry, chunked
			// differently, replays it and goes on.
			first := fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("Hel", "lo", ", never seen")}}
			after := 4 + 2 // Responses: two deltas
			if wire == WireChat {
				after = 1 + 2 // Chat: role chunk, two deltas
			}
			srv := newFake(t, fakemodel.Step{
				Failures: []fakemodel.Failure{{Mode: fakemodel.Disconnect, AfterEvents: after, Reply: &first}},
				Reply:    fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("H", "ello, wo", "rld")}},
			})
			c := newClient(t, srv, wire)
			var rec recorder
			resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			ids := rec.deltaItems(TextDelta)
			if len(ids) != 1 {
				t.Fatalf("deltas for items %v", ids)
			}
			if got := rec.deltas(TextDelta, ids[0]); got != "Hello, world" {
				t.Errorf("delivered %q", got)
			}
			var parts []string
			for _, e := range rec.of(TextDelta) {
				parts = append(parts, e.Delta)
			}
			if want := []string{"Hel", "lo", ", wo", "rld"}; !slices.Equal(parts, want) {
				t.Errorf("deltas %q, want %q", parts, want)
			}
			if len(resp.Output) != 1 || resp.Output[0].ID != ids[0] || resp.Output[0].Text != "Hello, world" {
				t.Errorf("output %+v", resp.Output)
			}
		})
	}
}

func TestReplayDivergent(t *testing.T) {
	first := fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("Hello, ", "world")}}
	srv := newFake(t, fakemodel.Step{
		Failures: []fakemodel.Failure{{Mode: fakemodel.Truncate, AfterEvents: 5, Reply: &first}},
		Reply:    fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("Hi ", "there, ", "friend.")}},
	})
	c := newClient(t, srv, WireResponses)
	var rec recorder
	resp, err := c.Stream(context.Background(), &Request{Model: "m"}, rec.emit)
	if err != nil {
		t.Fatal(err)
	}
	// Only what the first attempt delivered; nothing of the new text.
	if got := rec.deltas(TextDelta, firstMsgID); got != "Hello, " {
		t.Errorf("delivered %q", got)
	}
	done := rec.of(ItemDone)
	if len(done) != 1 || done[0].ItemID != firstMsgID || done[0].Item.Text != "Hi there, friend." {
		t.Errorf("ItemDone %+v; want the authoritative text under the first id", done)
	}
	if len(resp.Output) != 1 || resp.Output[0].ID != firstMsgID || resp.Output[0].Text != "Hi there, friend." {
		t.Errorf("output %+v", resp.Output)
	}
}
