//go:build unix

package checkpoint

import (
	"io/fs"
	"syscall"
)

// inode is fi's inode number: a file replaced by a rename (sed -i) has a
// new one even when its size and time look the same.
func inode(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
