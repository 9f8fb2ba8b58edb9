package model

import (
	"context"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// A refusal streams as text, and its message says it is a refusal, on
// both wires; an answer does not.
func TestRefusal(t *testing.T) {
	for _, wire := range []string{WireResponses, WireChat} {
		t.Run(wire, func(t *testing.T) {
			refusal := fakemodel.Item{Type: fakemodel.TypeMessage, Text: []string{"I can't ", "help with that."}, Refusal: true}
			srv := newFake(t, fakemodel.Answer(refusal), fakemodel.Say("sure"))
			c := newClient(t, srv, wire)
			var rec recorder
			resp, err := c.Stream(context.Background(), &Request{Model: "gpt-test", Input: []Item{{Type: ItemMessage, Role: RoleUser, Text: "do it"}}}, rec.emit)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Output) != 1 || !resp.Output[0].Refused || resp.Output[0].Text != "I can't help with that." {
				t.Fatalf("output %+v", resp.Output)
			}
			if got := rec.deltas(TextDelta, resp.Output[0].ID); got != "I can't help with that." {
				t.Errorf("streamed %q", got)
			}
			done := rec.of(ItemDone)
			if len(done) != 1 || !done[0].Item.Refused {
				t.Errorf("item done events %+v", done)
			}
			resp, err = c.Stream(context.Background(), &Request{Model: "gpt-test", Input: []Item{{Type: ItemMessage, Role: RoleUser, Text: "and this?"}}}, func(Event) {})
			if err != nil || len(resp.Output) != 1 || resp.Output[0].Refused {
				t.Errorf("an answer: %+v %v", resp, err)
			}
		})
	}
}
