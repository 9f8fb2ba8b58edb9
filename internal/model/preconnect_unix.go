//go:build unix && !aix

package model

import (
	"net"
	"syscall"
)

// stillOpen reports whether a connection on which the server has said
// nothing yet is still open: one the server closed (or wrote on first,
// which no HTTP server does) is of no use. It peeks without waiting.
func stillOpen(c net.Conn) bool {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return true // not a socket: nothing to ask
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	open := false
	err = rc.Read(func(fd uintptr) bool {
		var b [1]byte
		_, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		// Nothing to read yet. A byte, or none at the end (the
		// server's close), makes it useless.
		open = err == syscall.EAGAIN || err == syscall.EWOULDBLOCK
		return true // an answer either way: never wait
	})
	return err == nil && open
}
