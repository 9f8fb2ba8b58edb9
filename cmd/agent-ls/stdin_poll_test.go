//go:build linux || darwin

package main

import (
	"io"
	"os"
	"strings"
	"syscall"
	"testing"
)

func nonblocking(t *testing.T, fd uintptr) bool {
	t.Helper()
	fl, _, errno := syscall.Syscall(syscall.SYS_FCNTL, fd, syscall.F_GETFL, 0)
	if errno != 0 {
		t.Fatalf("F_GETFL: %v", errno)
	}
	return fl&syscall.O_NONBLOCK != 0
}

// A pipe is read through the poller, a read blocked on it ends when the
// File is closed (a blocking read would wait for the writer), and the
// pipe is blocking again after restore, the File closed or not.
func TestPollableStdinPipe(t *testing.T) {
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	fd := pr.Fd() // leaves pr in blocking mode, as os.Stdin is
	if nonblocking(t, fd) {
		t.Fatal("the pipe is non-blocking before pollableStdin")
	}
	r, restore := pollableStdin(pr)
	nf, ok := r.(*os.File)
	if !ok || nf == pr || nf.Fd() == fd {
		t.Fatalf("pollableStdin(pipe) = %T %v, want a File over a copy of the descriptor", r, r)
	}
	if !nonblocking(t, fd) {
		t.Fatal("the pipe is still blocking")
	}
	pw.WriteString("line one\n")
	buf := make([]byte, 64)
	n, err := nf.Read(buf)
	if err != nil || string(buf[:n]) != "line one\n" {
		t.Fatalf("Read = %q, %v", buf[:n], err)
	}
	done := make(chan error)
	go func() {
		_, err := nf.Read(buf)
		done <- err
	}()
	nf.Close()
	if err := <-done; err == nil {
		t.Fatal("a read blocked on the closed File returned no error")
	}
	restore()
	if nonblocking(t, fd) {
		t.Fatal("restore after the File's close left the pipe non-blocking")
	}
	// The original descriptor is still open, and reads what comes next.
	pw.WriteString("after\n")
	if n, err := pr.Read(buf); err != nil || string(buf[:n]) != "after\n" {
		t.Fatalf("reading the original after restore: %q, %v", buf[:n], err)
	}
}

// A socket is read through the poller too; what the peer closes ends in
// EOF, as before.
func TestPollableStdinSocket(t *testing.T) {
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	ours, peer := os.NewFile(uintptr(fds[0]), "ours"), os.NewFile(uintptr(fds[1]), "peer")
	defer ours.Close()
	r, restore := pollableStdin(ours)
	defer restore()
	defer r.(io.Closer).Close()
	if r == io.Reader(ours) || !nonblocking(t, uintptr(fds[0])) {
		t.Fatal("a socket was left as it was")
	}
	peer.WriteString("hello")
	peer.Close()
	got, err := io.ReadAll(r)
	if err != nil || string(got) != "hello" {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
}

// Anything else is returned as it is: a regular file, a reader that is
// no file.
func TestPollableStdinLeavesOthers(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "in")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if r, restore := pollableStdin(f); r != io.Reader(f) {
		t.Fatal("a regular file was replaced")
	} else {
		restore()
	}
	if nonblocking(t, f.Fd()) {
		t.Fatal("a regular file was made non-blocking")
	}
	sr := strings.NewReader("x")
	if r, _ := pollableStdin(sr); r != io.Reader(sr) {
		t.Fatal("a strings.Reader was replaced")
	}
}
