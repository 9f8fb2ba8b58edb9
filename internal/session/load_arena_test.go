package session

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/model"
)

// TestItemsArray: the answer that carries a session's items is built
// where they were read, the end of a turn the record shows no end of
// included, and is the same as one built by copying them.
func TestItemsArray(t *testing.T) {
	st := New(stateDir(t), nil)
	info := agent.SessionInfo{SessionID: "s-array", Cwd: t.TempDir()}
	obs, err := st.Observe(info, false)
	if err != nil {
		t.Fatal(err)
	}
	var seq int64
	for n := 1; n <= 3; n++ {
		benchTurn(obs, info.SessionID, n, &seq)
	}
	// A fourth turn cut by a stop: its end is made up on load.
	seq++
	obs.Item(model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: "go on"})
	obs.Event(event.Event{SessionID: info.SessionID, TurnID: "s-array-t4", Seq: seq, Payload: event.TurnStarted{Prompt: "go on"}})
	st.Close()

	ld, err := st.Load(info.SessionID)
	if err != nil || len(ld.Problems) > 0 {
		t.Fatalf("%v %q", err, ld.Problems)
	}
	if n := len(ld.Items); n != 3*9+2 || ld.Items[n-1].Type != event.TypeTurnCompleted {
		t.Fatalf("%d items, the last %s", n, ld.Items[n-1].Type)
	}
	if cap(ld.Items) != 3*10+1+1 || cap(ld.Record.History) != len(ld.Record.History) {
		// The first pass counted the 3*10+1 event lines (usage
		// events too), with room for a made-up end, and the item
		// lines exactly.
		t.Errorf("items %d of %d, history %d of %d: the lists were not sized by the first pass",
			len(ld.Items), cap(ld.Items), len(ld.Record.History), cap(ld.Record.History))
	}
	head, tail := []byte(`{"sessionId":"s-array","items":[`), []byte(`]}`)
	want := copied(ld, head, tail)
	got := ld.ItemsArray(head, tail)
	if !bytes.Equal(got, want) {
		t.Fatalf("in place:\n%s\ncopied:\n%s", got, want)
	}
	if &got[len(head)] != &ld.Items[0].JSON[0] {
		t.Error("the answer was not built where the items were read")
	}
	var res struct {
		Items []json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(got, &res); err != nil || len(res.Items) != len(ld.Items) {
		t.Fatalf("the answer does not read back: %v, %d items", err, len(res.Items))
	}
	// The items are intact; a head too long for the room is copied.
	if !bytes.Equal(ld.ItemsArray(head, tail), want) {
		t.Error("a second answer differs")
	}
	long := append([]byte(`{"pad":"`+strings.Repeat("x", 2000)+`",`), head[1:]...)
	if got := ld.ItemsArray(long, tail); !bytes.Equal(got, copied(ld, long, tail)) || &got[len(long)] == &ld.Items[0].JSON[0] {
		t.Error("a long head was not copied around the items")
	}
	// Items that are not the arena's, as they lie, are copied.
	ld.Items[0], ld.Items[1] = ld.Items[1], ld.Items[0]
	if got := ld.ItemsArray(head, tail); !bytes.Equal(got, copied(ld, head, tail)) {
		t.Error("items out of their order were answered as read")
	}
}

// copied is the answer built by copying the items.
func copied(ld *Loaded, head, tail []byte) []byte {
	var b bytes.Buffer
	b.Write(head)
	for i, it := range ld.Items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it.JSON)
	}
	b.Write(tail)
	return b.Bytes()
}
