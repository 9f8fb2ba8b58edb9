//go:build unix

package session

import (
	"errors"
	"os"
	"syscall"
)

// lock takes f's advisory lock, held while f is open: one process at a
// time appends to a session's record.
func lock(f *os.File) error {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return ErrInUse
	}
	return err
}
