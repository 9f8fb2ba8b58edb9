package search

import (
	"errors"
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

// Files around the read buffer's size (256 KiB in a Tree search) are
// searched whole, however the first read ends: one byte short of it, the
// whole of it, one byte past it; and a file over the size limit but
// shorter than the buffer is still refused.
func TestGrepFilesAtTheBufferEdge(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for _, size := range []int{256<<10 - 1, 256 << 10, 256<<10 + 1, 1} {
		line := "needle\n"
		var text string
		if size > len(line) {
			text = strings.Repeat("z", size-len(line)-1) + "\n" + line
		} else {
			text = "n"
		}
		files[fmt.Sprintf("f%d.txt", size)] = text
	}
	writeFiles(t, root, files)
	res, err := grepDir(t.Context(), root, Query{Pattern: `needle|^n$`, CaseSensitive: true, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if res.MatchFiles != 4 || res.Matches != 4 || len(res.Skipped) != 0 {
		t.Errorf("%d lines in %d files, skipped %v; want one line in each of 4 files", res.Matches, res.MatchFiles, res.Skipped)
	}
	q := Query{Pattern: `needle`, CaseSensitive: true, Limit: 100, MaxLineBytes: 500, MaxFileSize: 1000}
	g, _ := NewGrep(q, noDocs{})
	if err := g.Tree(t.Context(), root, root); err != nil {
		t.Fatal(err)
	}
	if res := g.Result(); res.Matches != 0 || len(res.Skipped) != 3 || !errors.Is(res.Skipped[0].Err, errTooLarge) {
		t.Errorf("over a 1000-byte limit: %d matches, skipped %v; want the 3 large files noted too large", res.Matches, res.Skipped)
	}
}
