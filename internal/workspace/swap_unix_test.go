//go:build unix

package workspace

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLinkSwappedDuringTheWrite: between the check of a change and its
// rename into place, the file or its folder is swapped for a link to
// somewhere outside (a command racing the write). Nothing is written
// through the link, no temporary file stays behind anywhere, and the error
// says which path became a link and that nothing was written.
func TestLinkSwappedDuringTheWrite(t *testing.T) {
	for _, tc := range []struct {
		name   string
		at     int // the step after which the swap happens
		folder bool
	}{
		{"file, after the temporary file", 2, false},
		{"file, after the journal's commit", 3, false},
		{"folder, after the temporary file", 2, true},
		{"folder, after the journal's commit", 3, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := realDir(t)
			ws, out := filepath.Join(base, "ws"), filepath.Join(base, "out")
			real := filepath.Join(ws, "sub", "f.txt")
			mustWrite(t, real, "old\n")
			mustWrite(t, filepath.Join(out, "f.txt"), "outside\n")
			swapped := real // the path that becomes a link
			if tc.folder {
				swapped = filepath.Join(ws, "sub")
			}
			n := 0
			stepHook = func() {
				n++
				if n != tc.at {
					return
				}
				if err := os.Rename(swapped, filepath.Join(ws, "moved")); err != nil {
					t.Error(err)
				}
				target := filepath.Join(out, "f.txt")
				if tc.folder {
					target = out
				}
				if err := os.Symlink(target, swapped); err != nil {
					t.Error(err)
				}
			}
			defer func() { stepHook = nil }()
			cs := &ChangeSet{Changes: []FileChange{{Kind: Update, Path: real, Real: real, OldContent: []byte("old\n"), NewContent: []byte("new\n")}}}
			err := WriteToDisk(cs)
			stepHook = nil
			if !errors.Is(err, ErrSymlink) {
				t.Fatalf("WriteToDisk = %v, want ErrSymlink", err)
			}
			msg := err.Error()
			if !strings.Contains(msg, swapped+" became a symbolic link") || !strings.Contains(msg, "nothing was written") {
				t.Errorf("message %q, want it to name %s, say it became a link and that nothing was written", msg, swapped)
			}
			if got := mustRead(t, filepath.Join(out, "f.txt")); got != "outside\n" {
				t.Errorf("outside file = %q", got)
			}
			if fi, err := os.Lstat(swapped); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
				t.Errorf("the link was replaced: %v", err)
			}
			_ = filepath.WalkDir(base, func(p string, d fs.DirEntry, err error) error {
				if err == nil && strings.Contains(d.Name(), ".agent-ls-") {
					t.Errorf("temporary file left: %s", p)
				}
				return nil
			})
		})
	}
}
