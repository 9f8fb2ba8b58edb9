//go:build unix

package main

import (
	"io"
	"os"
	"syscall"
)

// pollableStdin returns in, or, when in is a pipe or a socket (as editors
// start agent-ls), a File over the same descriptor in non-blocking mode,
// which the Go runtime's poller reads. A blocking read keeps its thread,
// and the processor with it, in the kernel: the goroutine that handles
// the request just read waits on that processor until the runtime's
// monitor thread takes it back, 0.1–0.5 ms into a start, on every
// request. restore puts the descriptor back in blocking mode while the
// File is open, for whoever reads the pipe after agent-ls; a closed File
// is left alone (its number may belong to another file by then).
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
	if err := syscall.SetNonblock(fd, true); err != nil {
		return in, func() {}
	}
	nf := os.NewFile(uintptr(fd), f.Name())
	return nf, func() {
		if sc, err := nf.SyscallConn(); err == nil {
			sc.Control(func(fd uintptr) { syscall.SetNonblock(int(fd), false) })
		}
	}
}
