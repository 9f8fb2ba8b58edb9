//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// openNonblock opens path for reading without waiting for a writer (a
// named pipe) and without making a terminal ours. O_NONBLOCK changes
// nothing for the regular files that are then read.
func openNonblock(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}
