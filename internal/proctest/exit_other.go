//go:build !linux && !windows

package proctest

import (
	"syscall"
	"time"
)

// WaitExit waits until the process pid has exited or timeout has passed,
// and reports whether it exited. Without pidfds it looks every few
// milliseconds.
func WaitExit(pid int, timeout time.Duration) (bool, error) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if err := syscall.Kill(pid, 0); err == syscall.ESRCH {
			return true, nil
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false, nil
}
