package event

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Every event type reads back as it was written, so a kept event is the
// event that was sent.
func TestParseRoundTrip(t *testing.T) {
	for i, p := range samples {
		ev := Event{SessionID: "s1", TurnID: "t1", Seq: int64(i + 1), Payload: p}
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Parse(b)
		if err != nil {
			t.Fatalf("%s: %v", p.EventType(), err)
		}
		if !reflect.DeepEqual(got, ev) {
			t.Errorf("%s read back as %#v, want %#v", p.EventType(), got, ev)
		}
	}
	if _, err := Parse([]byte(`{"type":"nonsense"}`)); err == nil {
		t.Error("an unknown type parses")
	}
}
