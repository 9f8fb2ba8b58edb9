package workspace

import "golang.org/x/sys/unix"

// dirOpenFlags open a directory on the way only to name it: O_PATH needs
// no read permission.
const dirOpenFlags = unix.O_PATH
