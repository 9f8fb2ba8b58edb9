//go:build linux || darwin

package main

import (
	"io"
	"os"
	"syscall"
)

// pollableStdin returns in, or, when in is a pipe or a socket (as editors
// start agent-ls), a File the Go runtime's poller reads: a copy of the
// descriptor, in non-blocking mode. A blocking read keeps its thread, and
// the processor with it, in the kernel: the goroutine that handles the
// request just read waits on that processor until the runtime's monitor
// thread takes it back, 0.1–0.5 ms into a start, on every request.
//
// The mode belongs to the pipe, which whoever started agent-ls may read
// after it: restore puts it back in blocking mode, through the original
// descriptor, which stays open whether or not the copy has been closed.
// (A killed agent-ls leaves it non-blocking.)
func pollableStdin(in io.Reader) (r io.Reader, restore func()) {
	f, ok := in.(*os.File)
	if !ok {
		return in, func() {}
	}
	st, err := f.Stat()
	if err != nil || st.Mode()&(os.ModeNamedPipe|os.ModeSocket) == 0 {
		return in, func() {}
	}
	fd := int(f.Fd())
	// Close-on-exec from the start: commands may be starting already.
	r0, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_DUPFD_CLOEXEC, 0)
	if errno != 0 {
		return in, func() {}
	}
	dup := int(r0)
	if err := syscall.SetNonblock(dup, true); err != nil {
		syscall.Close(dup)
		return in, func() {}
	}
	return os.NewFile(uintptr(dup), f.Name()), func() { syscall.SetNonblock(fd, false) }
}
