package proctest

import (
	"errors"
	"time"

	"golang.org/x/sys/unix"
)

// WaitExit waits until the process pid has exited (a zombie nobody has
// reaped yet has exited) or timeout has passed, and reports whether it
// exited. The kernel says when, through a pidfd, which works for any
// process, not only a child: nothing is polled.
func WaitExit(pid int, timeout time.Duration) (bool, error) {
	fd, err := unix.PidfdOpen(pid, 0)
	if errors.Is(err, unix.ESRCH) {
		return true, nil // gone (and reaped) already
	}
	if err != nil {
		return false, err
	}
	defer unix.Close(fd)
	deadline := time.Now().Add(timeout)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		ms := int(time.Until(deadline).Milliseconds())
		if ms < 0 {
			return false, nil
		}
		n, err := unix.Poll(fds, ms)
		switch {
		case errors.Is(err, unix.EINTR):
			continue
		case err != nil:
			return false, err
		}
		return n > 0, nil
	}
}
