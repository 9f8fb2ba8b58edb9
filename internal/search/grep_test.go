package search

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"testing/fstest"
)

// writeFiles creates files (relative path → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	fsys := fstest.MapFS{}
	for name, content := range files {
		fsys[name] = &fstest.MapFile{Data: []byte(content)}
	}
	if err := os.CopyFS(dir, fsys); err != nil {
		t.Fatal(err)
	}
}

// The hits kept while searching stay near the limit however many files
// match, so memory does not grow with the tree.
func TestGrepKeepsOnlyWhatItCanShow(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{}
	for i := range 2000 {
		files[fmt.Sprintf("d%02d/f%04d.txt", i%50, i)] = strings.Repeat("hit\n", 10)
	}
	writeFiles(t, root, files)
	for _, filesOnly := range []bool{false, true} {
		res, err := grepDir(t.Context(), root, Query{Pattern: "hit", CaseSensitive: true, Limit: 5, FilesOnly: filesOnly})
		if err != nil {
			t.Fatal(err)
		}
		if res.Matches != 20000 && !filesOnly || res.MatchFiles != 2000 {
			t.Errorf("files_only=%v: counted %d lines in %d files", filesOnly, res.Matches, res.MatchFiles)
		}
		if len(res.Files) > 5 || res.peakFiles > 4*5+1 {
			t.Errorf("files_only=%v: kept %d files, at most %d at once; want the limit and at most 4× it", filesOnly, len(res.Files), res.peakFiles)
		}
		if res.Files[0].Rel != "d00/f0000.txt" {
			t.Errorf("first kept file %s", res.Files[0].Rel)
		}
	}
}
