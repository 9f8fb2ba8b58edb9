package acp

import (
	"bytes"
	"fmt"
	"log/slog"
	"testing"
)

// countingWriter keeps what is written and how many writes it took.
type countingWriter struct {
	bytes.Buffer
	writes int
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.writes++
	return c.Buffer.Write(p)
}

// TestWireHold: messages written during a hold go out in order, in a
// few writes, and all of them by its release; nested holds write at the
// last release.
func TestWireHold(t *testing.T) {
	out := &countingWriter{}
	w := &wire{out: out, log: slog.New(slog.DiscardHandler)}
	var want bytes.Buffer
	w.hold()
	w.hold()
	for i := range 2000 {
		msg := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"session/update","params":{"n":%d,"pad":"%0100d"}}`+"\n", i, 0)
		want.Write(msg)
		if n, err := w.Write(msg); n != len(msg) || err != nil {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	w.release()
	if out.Len() >= want.Len() {
		t.Fatal("an inner release wrote everything")
	}
	w.release()
	if !bytes.Equal(out.Bytes(), want.Bytes()) {
		t.Fatal("the messages out differ from those written")
	}
	if max := want.Len()/gatherChunk + 2; out.writes > max {
		t.Errorf("%d writes for %d bytes (at most %d)", out.writes, want.Len(), max)
	}
	// After the hold, each message goes out as it is written.
	before := out.writes
	w.Write([]byte("{}\n"))
	if out.writes != before+1 || !bytes.HasSuffix(out.Bytes(), []byte("{}\n")) {
		t.Error("a message after the hold was not written at once")
	}
}
