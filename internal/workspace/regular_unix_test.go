//go:build unix

package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// noHang runs f and fails the test if it does not return: a reader hung
// in the open of the pipe at fifo is released, again and again, after a
// generous grace, so the test fails instead of timing out. No duration is
// asserted.
func noHang(t *testing.T, fifo string, f func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- f() }()
	select {
	case err := <-done:
		return err
	case <-time.After(20 * time.Second):
	}
	for {
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case err := <-done:
			t.Fatalf("hung on the pipe until it was released; then returned %v", err)
			return err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// A named pipe where a file is read (the view's ReadFile, the disk
// writer's look at what it replaces) is refused at once, not waited on.
func TestSpecialFileRefused(t *testing.T) {
	dir := realDir(t)
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	err := noHang(t, fifo, func() error { _, err := NewStore().ReadFile(fifo); return err })
	if !errors.Is(err, ErrNotRegular) || err.Error() != fifo+" is a named pipe (FIFO), not a regular file; it was not read" {
		t.Errorf("Store.ReadFile = %v", err)
	}
	cs := &ChangeSet{Changes: []FileChange{{Kind: Update, Path: fifo, Real: fifo, OldContent: []byte(""), NewContent: []byte("x\n")}}}
	err = noHang(t, fifo, func() error { return WriteToDisk(cs) })
	if !errors.Is(err, ErrNotRegular) {
		t.Errorf("WriteToDisk = %v, want it refused as not a regular file", err)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
}
