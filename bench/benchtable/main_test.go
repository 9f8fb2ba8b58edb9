package main

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/agent-ls/agent-ls/bench/benchrow"
)

func TestRenderAlignsRowsAndRatios(t *testing.T) {
	rows, err := benchrow.Read(strings.NewReader(`{"row":"grep literal","value":120,"unit":"ms","peer":"rg","peerValue":100,"goal":"≤ 1.0x","verdict":"FAIL","load":"1.50"}

{"row":"didOpen rate","value":25000,"unit":"/s","goal":"≥ 10000 /s","verdict":"PASS","load":"0.70"}
`))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	render(&b, rows)
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("got %d lines, want a header and 2 rows:\n%s", len(lines), b.String())
	}
	for _, want := range []string{"120.0 ms", "100.0 ms", "1.20x", "FAIL", "1.50"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("row %q lacks %q", lines[1], want)
		}
	}
	if f := strings.Fields(lines[2]); f[2] != "25000" || f[4] != "-" || f[5] != "-" {
		t.Errorf("a row without a peer: %q", lines[2])
	}
	// The load column starts at the same place on every line.
	col := runeIndex(lines[0], "load")
	if runeIndex(lines[1], "1.50") != col || runeIndex(lines[2], "0.70") != col {
		t.Errorf("load column not aligned:\n%s", b.String())
	}
}

// runeIndex is the column of sub in s, counted in characters.
func runeIndex(s, sub string) int {
	i := strings.Index(s, sub)
	if i < 0 {
		return -1
	}
	return utf8.RuneCountInString(s[:i])
}

func TestReadRejectsABrokenLine(t *testing.T) {
	if _, err := benchrow.Read(strings.NewReader("{\"row\":\"a\"}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v, want one naming line 2", err)
	}
}
