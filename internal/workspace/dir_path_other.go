//go:build unix && !linux

package workspace

import "golang.org/x/sys/unix"

// dirOpenFlags open a directory on the way; without O_PATH it is opened
// for reading, so every directory on the way must be readable.
const dirOpenFlags = unix.O_RDONLY
