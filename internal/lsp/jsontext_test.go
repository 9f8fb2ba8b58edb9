package lsp

import (
	"encoding/json"
	"testing"
)

// jsonText decodes what encoding/json decodes, to the same string.
func FuzzJSONText(f *testing.F) {
	for _, s := range []string{
		`""`, `"plain"`, `"line\nline\r\n\ttab"`, `"\"\\\/\b\f"`, `"é 😀 \u00e9 \u20AC"`,
		`"\ud83d\ude00 pair"`, `"\ud83d alone"`, `"\ud83d\u0041 then A"`, `"\udc00 low"`,
		"\"\xff invalid \xc3\"", `"end\\"`, `null`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want string
		if json.Unmarshal(data, &want) != nil {
			return
		}
		var got jsonText
		if err := json.Unmarshal(data, &got); err != nil {
			t.Fatalf("%q: %v", data, err)
		}
		if string(got) != want {
			t.Errorf("%q: %q, want %q", data, got, want)
		}
	})
}
