package sandbox

import (
	"io"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpenPTY: what the slave writes the master reads, the window is
// 80x24, and closing the master ends a Read still waiting.
func TestOpenPTY(t *testing.T) {
	master, slave, err := OpenPTY()
	if err != nil {
		t.Fatal(err)
	}
	defer slave.Close()
	ws, err := unix.IoctlGetWinsize(int(slave.Fd()), unix.TIOCGWINSZ)
	if err != nil || ws.Row != PTYRows || ws.Col != PTYCols {
		t.Errorf("window %+v (%v)", ws, err)
	}
	if _, err := io.WriteString(slave, "hello\n"); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, err := master.Read(buf)
	if err != nil || !strings.HasPrefix(string(buf[:n]), "hello") {
		t.Fatalf("read %q (%v)", buf[:n], err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := master.Read(buf)
		done <- err
	}()
	master.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a Read after Close succeeded")
		}
	case <-time.After(20 * time.Second):
		t.Fatal("closing the master did not end a waiting Read")
	}
}
