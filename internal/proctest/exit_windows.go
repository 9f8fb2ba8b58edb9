package proctest

import (
	"errors"
	"time"

	"golang.org/x/sys/windows"
)

// WaitExit waits until the process pid has exited or timeout has passed,
// and reports whether it exited.
func WaitExit(pid int, timeout time.Duration) (bool, error) {
	h, err := windows.OpenProcess(windows.SYNCHRONIZE, false, uint32(pid))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return true, nil // no such process
	}
	if err != nil {
		return false, err
	}
	defer windows.CloseHandle(h)
	ev, err := windows.WaitForSingleObject(h, uint32(timeout.Milliseconds()))
	if err != nil {
		return false, err
	}
	return ev == windows.WAIT_OBJECT_0, nil
}
