package session

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/model"
)

// itemLines are items as agent-ls writes them and lines it never writes:
// escapes of every kind, surrogates whole and lone, bad UTF-8, control
// characters, keys it does not know or spells otherwise, nulls, spaces,
// truncations.
var itemLines = []string{
	`{"type":"message","role":"user","text":"hello"}`,
	`{"type":"message","id":"m1","role":"assistant","text":"a \"quoted\" \\ path\/x\n\ttab\r\b\f","phase":"final_answer","refused":true}`,
	`{"type":"function_call","id":"fc","callId":"c1","name":"shell","arguments":"{\"command\":[\"ls\"]}"}`,
	`{"type":"function_call_output","callId":"c1","output":"line one\nline two \u003cb\u003e \u00e9 \u2028"}`,
	`{"type":"reasoning","id":"rs","summary":["one","two \u0041"],"encryptedContent":"xyz","reasoningText":[]}`,
	`{"type":"message","role":"user","text":"emoji \ud83d\ude00 lone \ud83d end","images":["data:image/png;base64,AAAA"]}`,
	`{"type":"message","role":"user","text":"lone low \ude00 and high at end \ud83d"}`,
	`{"type":"message","role":"user","text":"é直接 UTF-8 ✓"}`,
	`{"type":"web_search_call","id":"ws","status":"completed","action":{"type":"search","query":"go"}}`,
	`{"type":"message","Text":"other case"}`,
	`{"type":"message","unknown":1}`,
	`{"type":"message","images":null}`,
	`{"type":"message", "text":"space"}`,
	`{"type":"message","refused":false,"summary":[]}`,
	`{"type":"message","text":"\u0000nul"}`,
	`{}`,
	`{"type":"message","text":"bad \x"}`,
	`{"type":"message","text":"bad \u12G4"}`,
	`{"type":"message","text":"cut`,
	`{"type":"message","text":"ctl ` + "\x01" + `"}`,
	`{"type":"message","text":"bad utf8 ` + "\xff\xfe" + `"}`,
	`{"type":"message","text":"x"}x`,
	`{"type":"message","text":"x",}`,
	`{"type":"message","refused":tru}`,
	`{"type":"message","summary":["a",]}`,
	`{"type":"message","summary":["a" "b"]}`,
	`{"type":"message","text":"x"`,
	`{"type":"message","text":"dup","text":"last"}`,
	`[]`,
	``,
}

// TestReadItemAsEncodingJSON: what readItem makes of a line is what
// encoding/json makes of it, an error where it fails.
func TestReadItemAsEncodingJSON(t *testing.T) {
	for _, l := range itemLines {
		checkReadItem(t, []byte(l))
	}
	// And what agent-ls writes, whatever the text.
	for _, text := range []string{"plain", "quote \" back \\ nl \n <>&", "\u2028\u2029", "\xff bad", strings.Repeat("é", 100), "\x00\x1f"} {
		b, err := json.Marshal(model.Item{Type: model.ItemMessage, Role: model.RoleUser, Text: text, Summary: []string{text}, Refused: true})
		if err != nil {
			t.Fatal(err)
		}
		checkReadItem(t, b)
		if !decodeItem(b, &model.Item{}) {
			t.Errorf("the fast path does not take what agent-ls writes: %s", b)
		}
	}
}

func checkReadItem(t *testing.T, b []byte) {
	t.Helper()
	var want, got model.Item
	werr := json.Unmarshal(b, &want)
	gerr := readItem(b, &got)
	if (werr == nil) != (gerr == nil) || !reflect.DeepEqual(want, got) {
		t.Errorf("%q:\nencoding/json %+v (%v)\nreadItem      %+v (%v)", b, want, werr, got, gerr)
	}
}

// FuzzReadItem checks readItem against encoding/json on any line.
func FuzzReadItem(f *testing.F) {
	for _, l := range itemLines {
		f.Add([]byte(l))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want, got model.Item
		werr := json.Unmarshal(b, &want)
		gerr := readItem(b, &got)
		if (werr == nil) != (gerr == nil) || (werr == nil && !reflect.DeepEqual(want, got)) {
			t.Errorf("%q: encoding/json %+v (%v), readItem %+v (%v)", b, want, werr, got, gerr)
		}
	})
}
