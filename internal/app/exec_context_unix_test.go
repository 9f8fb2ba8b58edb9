//go:build unix

package app

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestExecInputMentionsOfSpecialFiles: a repository's FIFOs and a link to
// /dev/zero, named like a text file and an image, are not attached: exec
// neither waits on the FIFO nor reads the device without end.
func TestExecInputMentionsOfSpecialFiles(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"pipe.txt", "pipe.png"} {
		if err := syscall.Mkfifo(filepath.Join(dir, name), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"zero.txt", "zero.png"} {
		if err := os.Symlink("/dev/zero", filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	var stderr bytes.Buffer
	in := execInput("see @pipe.txt @pipe.png @zero.txt @zero.png", dir, &stderr)
	if len(in.Context) != 0 || len(in.Images) != 0 {
		t.Errorf("attached: %d context items, %d images", len(in.Context), len(in.Images))
	}
}
