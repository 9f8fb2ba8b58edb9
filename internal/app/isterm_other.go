//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package app

import "os"

// isTerminalFile reports whether f is a character device, the nearest
// test this platform has without a console API.
func isTerminalFile(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
