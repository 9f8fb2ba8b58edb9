package jsonstr

import (
	"encoding/json"
	"strings"
	"testing"
)

// documentContent is the content of a JSON string holding a 20 KB
// document of lines with a tab, quotes and a non-ASCII letter, as
// editors send them.
func documentContent() []byte {
	line := strings.Repeat("y", 70) + "\t\"é\"\n"
	b, _ := json.Marshal(strings.Repeat(line, 20_000/len(line)))
	return b[1 : len(b)-1]
}

func BenchmarkDecode(b *testing.B) {
	content := documentContent()
	b.SetBytes(int64(len(content)))
	for b.Loop() {
		if _, ok := Decode(content); !ok {
			b.Fatal("refused")
		}
	}
}

func BenchmarkText(b *testing.B) {
	quoted := append(append([]byte{'"'}, documentContent()...), '"')
	b.SetBytes(int64(len(quoted)))
	for b.Loop() {
		var t Text
		if err := t.UnmarshalJSON(quoted); err != nil {
			b.Fatal(err)
		}
	}
}
