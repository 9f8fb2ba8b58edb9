package event

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
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

// slowParse is Parse without the plain header's shortcut.
func slowParse(data []byte) (Event, error) {
	var h header
	if err := json.Unmarshal(data, &h); err != nil {
		return Event{}, err
	}
	return ParsePayload(h.Type, data, Event{SessionID: h.SessionID, TurnID: h.TurnID, Seq: h.Seq})
}

func checkParseAsSlow(t *testing.T, data []byte) {
	t.Helper()
	got, err := Parse(data)
	want, wantErr := slowParse(data)
	if (err == nil) != (wantErr == nil) || !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: Parse gave %#v, %v; decoding gives %#v, %v", data, got, err, want, wantErr)
	}
}

// TestParseHeaderShortcut: whatever the header holds, Parse reads what
// decoding the whole object reads, and refuses what it refuses.
func TestParseHeaderShortcut(t *testing.T) {
	for _, id := range []string{"", "s1", `q"uote`, `back\slash`, "tab\t", "<&>", "é日本", "bad\xff", "\u2028"} {
		for i, p := range samples {
			b, err := json.Marshal(Event{SessionID: id, TurnID: id + "-t", Seq: int64(i * 1000003), Payload: p})
			if err != nil {
				t.Fatal(err)
			}
			checkParseAsSlow(t, b)
		}
	}
	for _, s := range []string{
		`{"sessionId":"s","turnId":"t","seq":1,"type":"message","itemId":"m","text":"x"}`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"turnStarted"}`,
		`{"sessionId":"s","turnId":"t","seq":01,"type":"message"}`,
		`{"sessionId":"s","turnId":"t","seq":-1,"type":"message"}`,
		`{"sessionId":"s","turnId":"t","seq":1.5,"type":"message"}`,
		`{"sessionId":"s","turnId":"t","seq":99999999999999999999,"type":"message"}`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"message"`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"message",}`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"message","text":}`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"nonsense"}`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"message" }`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"message"} trailing`,
		`{"type":"message","sessionId":"s","turnId":"t","seq":1}`,
		`{ "sessionId":"s","turnId":"t","seq":1,"type":"message"}`,
		`{"sessionId":"s\u0041","turnId":"t","seq":1,"type":"message"}`,
		`{"sessionId":"s` + "\x01" + `","turnId":"t","seq":1,"type":"message"}`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"message","text":"\ud800"}`,
		`{"sessionId":"s","turnId":"t","seq":1,"type":"toolCall","arguments":{"a":[1,2]}}`,
		`{"sessionId":"s","turnId":"t","seq":`,
		`{"sessionId":"`,
		``,
	} {
		checkParseAsSlow(t, []byte(s))
	}
}

func FuzzParse(f *testing.F) {
	for i, p := range samples {
		b, _ := json.Marshal(Event{SessionID: "s1", TurnID: "t1", Seq: int64(i), Payload: p})
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Records hold what MarshalJSON wrote: one value per key (and
		// encoding/json matches keys ignoring case).
		var keys map[string]json.RawMessage
		if json.Unmarshal(data, &keys) == nil && hasDuplicateKeys(data) {
			return
		}
		checkParseAsSlow(t, data)
	})
}

// hasDuplicateKeys: data, a JSON object, names a key twice at its top,
// ignoring case.
func hasDuplicateKeys(data []byte) bool {
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return false
	}
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		k, _ := tok.(string)
		k = strings.ToLower(strings.ToUpper(k)) // as encoding/json folds keys
		if seen[k] {
			return true
		}
		seen[k] = true
		var skip json.RawMessage
		if dec.Decode(&skip) != nil {
			return false
		}
	}
	return false
}
