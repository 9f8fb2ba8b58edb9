package app

import (
	"os"

	"golang.org/x/sys/unix"
)

// isTerminalFile reports whether f is a terminal: it has terminal
// attributes (a character device such as /dev/null has none).
func isTerminalFile(f *os.File) bool {
	rc, err := f.SyscallConn()
	if err != nil {
		return false
	}
	ok := false
	// Control, unlike Fd, leaves the file's blocking mode alone.
	_ = rc.Control(func(fd uintptr) {
		_, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		ok = err == nil
	})
	return ok
}
