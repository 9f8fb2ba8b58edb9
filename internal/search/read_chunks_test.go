package search

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// A file larger than the read buffer is searched a buffer at a time: the
// same lines, with the same numbers, as when searched whole, whatever
// falls on a buffer's edge (a line longer than the buffer, CRLF endings,
// no final newline); a NUL in its first bytes still makes it binary.
func TestGrepLargeFileInChunks(t *testing.T) {
	var b strings.Builder
	for i := range 40000 {
		switch {
		case i == 20000:
			b.WriteString(strings.Repeat("x", 700<<10) + " needle in a long line\n")
		case i%97 == 0:
			fmt.Fprintf(&b, "line %d has a needle\r\n", i)
		default:
			fmt.Fprintf(&b, "line %d %s\n", i, strings.Repeat("y", i%50))
		}
	}
	b.WriteString("needle at the end without newline")
	text := b.String()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{"big.txt": text, "bin.dat": "\x00" + text})
	for _, filesOnly := range []bool{false, true} {
		q := Query{Pattern: `needle`, CaseSensitive: true, Limit: 2000, FilesOnly: filesOnly, MaxLineBytes: 500, MaxFileSize: 8 << 20} // as grepDir
		whole, _ := NewGrep(q, noDocs{})
		whole.Text("big.txt", []byte(text))
		want := whole.Result()
		res, err := grepDir(t.Context(), root, q)
		if err != nil {
			t.Fatal(err)
		}
		res.peakFiles, want.peakFiles = 0, 0
		if !reflect.DeepEqual(res, want) {
			t.Errorf("files_only=%v: in chunks %d lines in %d files, whole %d in %d; or their lines differ", filesOnly, res.Matches, res.MatchFiles, want.Matches, want.MatchFiles)
		}
		if !filesOnly && (res.Matches != 40000/97+1+2 || res.Files[0].Lines[len(res.Files[0].Lines)-1].N != 40001) {
			t.Errorf("%d matches, last on line %d", res.Matches, res.Files[0].Lines[len(res.Files[0].Lines)-1].N)
		}
	}
}
