//go:build unix

package app

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestLogFileIsPrivate: --log-file is created readable by the user
// alone, whatever the umask, and one that exists readable by others is
// narrowed.
func TestLogFileIsPrivate(t *testing.T) {
	old := syscall.Umask(0o022)
	defer syscall.Umask(old)
	dir := t.TempDir()
	existing := filepath.Join(dir, "old.log")
	if err := os.WriteFile(existing, []byte("before\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(existing, 0o664); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{filepath.Join(dir, "new.log"), existing} {
		s := &Settings{LogFile: path, LogLevel: "info"}
		log, closeFn, err := s.logger(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		log.Info("a prompt")
		closeFn()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s: mode %v, want 0600", filepath.Base(path), perm)
		}
	}
	if b, _ := os.ReadFile(existing); len(b) <= len("before\n") {
		t.Errorf("the existing log was not appended to: %q", b)
	}
}
