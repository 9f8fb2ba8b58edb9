package search

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// mapDocs is an editor with the documents of a map open.
type mapDocs map[string]string

func (d mapDocs) OpenPaths() []string {
	var out []string
	for p := range d {
		out = append(out, p)
	}
	return out
}

func (d mapDocs) Document(p string) (string, bool) { t, ok := d[p]; return t, ok }

// A search that stops at its limit finds the first matching files in
// path order, whatever the timing of its workers, counts only the files
// up to there, and reads nothing after them: the oversized file at the
// end is never opened, so never noted.
func TestGrepStopAtLimitIsThePathOrderPrefix(t *testing.T) {
	root := t.TempDir()
	files := map[string]string{"zz/big.txt": strings.Repeat("hit\n", 100)}
	var all []string
	for i := range 400 {
		// Names that sort differently as names and as paths: "d1.x"
		// before "d1/", "d1/" before "d10".
		rel := fmt.Sprintf("d%d/f%03d.txt", i%13, i)
		if i%5 == 0 {
			rel = fmt.Sprintf("d%d.x", i%13)
		}
		files[rel] = fmt.Sprintf("no\nhit %d\nhit again\n", i)
	}
	writeFiles(t, root, files)
	for rel := range files {
		if rel != "zz/big.txt" {
			all = append(all, rel)
		}
	}
	slices.Sort(all)
	unsaved := filepath.Join(root, "d0/a-unsaved.txt") // sorts before d0/f000.txt
	late := filepath.Join(root, "zz/unsaved.txt")
	docs := mapDocs{unsaved: "hit unsaved\n", late: "hit late\n"}
	for _, filesOnly := range []bool{false, true} {
		for range 5 {
			q := Query{Pattern: "hit", CaseSensitive: true, Limit: 7, FilesOnly: filesOnly, MaxLineBytes: 100, MaxFileSize: 100, StopAtLimit: true}
			g, err := NewGrep(q, docs)
			if err != nil {
				t.Fatal(err)
			}
			if err := g.Tree(t.Context(), root, root); err != nil {
				t.Fatal(err)
			}
			res := g.Result()
			// The walk stops at the file of two hits each that makes 7
			// lines (files, with files only); the unsaved document,
			// before there in path order, is added (and counted) after
			// it. Kept: the first 7 lines (files).
			want := []string{all[0], "d0/a-unsaved.txt", all[1], all[2]}
			matches, matchFiles := 9, 5
			if filesOnly {
				want = append([]string{all[0], "d0/a-unsaved.txt"}, all[1:6]...)
				matches, matchFiles = 8, 8 // one line a file is enough
			}
			var got []string
			for _, f := range res.Files {
				got = append(got, f.Rel)
			}
			if !res.Stopped || !slices.Equal(got, want) || res.Matches != matches || res.MatchFiles != matchFiles || len(res.Skipped) != 0 {
				t.Fatalf("files_only=%v: stopped=%v files %v, %d lines in %d files, skipped %v; want stopped, %v, %d in %d, none skipped",
					filesOnly, res.Stopped, got, res.Matches, res.MatchFiles, res.Skipped, want, matches, matchFiles)
			}
		}
	}
	// Below the limit every file is searched and counted exactly.
	q := Query{Pattern: "hit", CaseSensitive: true, Limit: 2000, MaxLineBytes: 100, MaxFileSize: 100, StopAtLimit: true}
	g, _ := NewGrep(q, docs)
	if err := g.Tree(t.Context(), root, root); err != nil {
		t.Fatal(err)
	}
	res := g.Result()
	if res.Stopped || res.Matches != 2*len(all)+2 || res.MatchFiles != len(all)+2 || len(res.Skipped) != 1 || res.Skipped[0].Rel != "zz/big.txt" {
		t.Errorf("stopped=%v, %d lines in %d files, skipped %v; want every file: %d lines in %d, zz/big.txt skipped", res.Stopped, res.Matches, res.MatchFiles, res.Skipped, 2*len(all)+2, len(all)+2)
	}
}
