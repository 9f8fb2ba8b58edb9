package session

import (
	"encoding/json"
	"testing"

	"github.com/agent-ls/agent-ls/internal/event"
)

// TestPlainHeader: the direct reading of an event line's header agrees
// with the JSON decoder wherever it answers, and leaves to the decoder
// what it cannot read plainly.
func TestPlainHeader(t *testing.T) {
	for _, tc := range []struct {
		header string
		plain  bool
	}{
		{`{"t":"event","at":"2026-11-26T08:00:00Z","turn":"s-1-t1","seq":1,"type":"turnStarted"`, true},
		{`{"t":"event","at":"2026-11-26T08:00:00Z","turn":"s-1-t12","seq":123456,"type":"usage"`, true},
		{`{"t":"event","turn":"s-\u0031-t1","seq":1,"type":"message"`, false},              // an escape
		{`{"t":"event","turn":"s-1-t1","seq":1,"type":"futureType"`, false},                // unknown type
		{`{"t":"event","turn":"s-1-t1","seq":1.5,"type":"message"`, false},                 // not an integer
		{`{"t":"event","turn":"s-1-t1","type":"message"`, false},                           // no seq
		{`{"t":"event","turn":"s-1-t1","seq":1234567890123456789,"type":"message"`, false}, // too long
	} {
		turn, seq, typ, ok := plainHeader([]byte(tc.header))
		if ok != tc.plain {
			t.Errorf("%s: plain %v, want %v", tc.header, ok, tc.plain)
			continue
		}
		if !ok {
			continue
		}
		var want struct {
			Turn string     `json:"turn"`
			Seq  int64      `json:"seq"`
			Type event.Type `json:"type"`
		}
		if err := json.Unmarshal([]byte(tc.header+"}"), &want); err != nil {
			t.Fatal(err)
		}
		if string(turn) != want.Turn || seq != want.Seq || typ != want.Type {
			t.Errorf("%s: read %s %d %s, the decoder %+v", tc.header, turn, seq, typ, want)
		}
	}
}
