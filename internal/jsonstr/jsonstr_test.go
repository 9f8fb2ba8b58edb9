package jsonstr

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// seeds are JSON values with escapes of every kind, surrogates whole and
// lone, invalid UTF-8, control characters, bad and cut escapes.
var seeds = []string{
	`""`, `"plain"`, `"line\nline\r\n\ttab"`, `"\"\\\/\b\f"`, `"é 😀 \u00e9 \u20AC"`,
	`"\ud83d\ude00 pair"`, `"\ud83d alone"`, `"\ud83d\u0041 then A"`, `"\udc00 low"`,
	`"\ud83d\ud83d\ude00 high then pair"`, `"\ud83d\u00"`, `"\u00e"`, `"\u12G4"`, `"\x"`, `"\"`,
	"\"\xff invalid \xc3\"", "\"\xed\xa0\x80 surrogate in UTF-8\"", "\"ctl \x01\"", "\"tab \t raw\"", "\"\x7f del\"",
	`"end\\"`, `"" `, "\"a\"\n\t", `"a" "b"`, `"a"b"`, `null`, `5`, `"`,
	`"` + strings.Repeat(`eight by`, 4) + `\n` + strings.Repeat("é😀", 5) + `"`,
	`"` + strings.Repeat(`line \"é\" \\ \/ \b\f\n\r\t \u00e9\u20AC \ud83d\ude00 😀 </x>\n`, 4) + `"`,
}

// Text decodes what encoding/json decodes, to the same string.
func FuzzText(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want string
		if json.Unmarshal(data, &want) != nil {
			return
		}
		var got Text
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if string(got) != want {
			t.Errorf("%q: %q, want %q", data, got, want)
		}
	})
}

// checkDecode: End finds where the string data starts with closes, and
// Decode takes its content only if encoding/json reads it, as the same
// string, and takes it whenever encoding/json reads it without replacing
// invalid UTF-8. (Decode does not look past End: what follows the string
// is its caller's.)
func checkDecode(t *testing.T, data []byte) {
	t.Helper()
	var want string
	werr := json.Unmarshal(data, &want)
	if len(data) == 0 || data[0] != '"' {
		return
	}
	last := len(bytes.TrimRight(data, " \t\r\n")) - 1 // the closing quote of a valid string
	end, closed := End(data, 1)
	if werr == nil && (!closed || end != last) {
		t.Errorf("%q: End %d %v, want %d", data, end, closed, last)
	}
	if !closed {
		if end != len(data) {
			t.Errorf("%q: End %d of an unclosed string, want %d", data, end, len(data))
		}
		return
	}
	got, ok := Decode(data[1:end])
	switch {
	case !ok && werr == nil && utf8.Valid(data):
		t.Errorf("%q: Decode refuses what encoding/json reads as %q", data, want)
	case ok && end == last && (werr != nil || got != want):
		t.Errorf("%q: Decode %q, encoding/json %q (%v)", data, got, want, werr)
	}
}

func TestDecodeAsEncodingJSON(t *testing.T) {
	for _, s := range seeds {
		checkDecode(t, []byte(s))
	}
	// And what encoding/json writes, whatever the text.
	for _, text := range []string{"plain", "quote \" back \\ nl \n <>&", "\u2028\u2029", "\x00\x1f\x7f", strings.Repeat("é", 100), "😀" + strings.Repeat("x", 15)} {
		b, err := json.Marshal(text)
		if err != nil {
			t.Fatal(err)
		}
		checkDecode(t, b)
		if got, ok := Decode(b[1 : len(b)-1]); !ok || got != text {
			t.Errorf("%s: Decode %q %v, want %q", b, got, ok, text)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(checkDecode)
}

// End skips escaped quotes, however many backslashes come before them.
func TestEnd(t *testing.T) {
	for _, c := range []struct {
		in  string
		end int
		ok  bool
	}{
		{`""`, 1, true},
		{`"a"`, 2, true},
		{`"\""`, 3, true},
		{`"\\"`, 3, true},
		{`"\\\""x"`, 5, true},
		{`"\\\\"`, 5, true},
		{`"a\"`, 4, false},
		{`"abc`, 4, false},
	} {
		if end, ok := End([]byte(c.in), 1); end != c.end || ok != c.ok {
			t.Errorf("End(%s) = %d %v, want %d %v", c.in, end, ok, c.end, c.ok)
		}
	}
}
