package model

import (
	"context"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// BenchmarkStreamDeltas measures text deltas per second through the client,
// from the fake server over loopback, for a reply of 20,000 tiny deltas.
func BenchmarkStreamDeltas(b *testing.B) {
	const n = 20000
	chunks := make([]string, n)
	for i := range chunks {
		chunks[i] = "tok "
	}
	for _, wire := range []string{WireResponses, WireChat} {
		b.Run(wire, func(b *testing.B) {
			srv := newFake(b)
			c := newClient(b, srv, wire)
			req := &Request{Model: "m", Input: []Item{{Type: ItemMessage, Role: RoleUser, Text: "go"}}}
			b.ReportAllocs()
			deltas := 0
			for b.Loop() {
				srv.Add(fakemodel.Answer(fakemodel.Message(chunks...)))
				var text strings.Builder
				resp, err := c.Stream(context.Background(), req, func(e Event) {
					if e.Kind == TextDelta {
						deltas++
						text.WriteString(e.Delta)
					}
				})
				if err != nil {
					b.Fatal(err)
				}
				if text.Len() != 4*n || len(resp.Output) != 1 {
					b.Fatalf("got %d bytes of text, %d items", text.Len(), len(resp.Output))
				}
			}
			b.ReportMetric(float64(deltas)/b.Elapsed().Seconds(), "deltas/s")
		})
	}
}
