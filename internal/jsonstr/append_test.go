package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// checkAppend: Append writes what encoding/json writes, and, with
// Replaced, what it writes again for the string it decodes from that.
func checkAppend(t *testing.T, s string) {
	t.Helper()
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := Append([]byte("x"), s, Escaped); !bytes.Equal(got[1:], want) || got[0] != 'x' {
		t.Fatalf("Append(%q) = %s, encoding/json writes %s", s, got, want)
	}
	var back string
	if err := json.Unmarshal(want, &back); err != nil {
		t.Fatal(err)
	}
	again, _ := json.Marshal(back)
	if got := Append(nil, s, Replaced); !bytes.Equal(got, again) {
		t.Fatalf("Append(%q, Replaced) = %s, encoding/json writes %s the second time", s, got, again)
	}
}

func TestAppendAsEncodingJSON(t *testing.T) {
	var all strings.Builder
	for c := range 256 {
		all.WriteByte(byte(c))
	}
	for _, s := range []string{"", "plain", `q"b\s`, "<&>", "\b\f\n\r\t\x00\x1f\x7f", "\u2028\u2029", "\ufffd", "bad\xff\xc3", "é日本🙂", all.String()} {
		checkAppend(t, s)
	}
}

func FuzzAppend(f *testing.F) {
	for _, s := range []string{"", "a\nb", "<\xff>", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) { checkAppend(t, s) })
}
