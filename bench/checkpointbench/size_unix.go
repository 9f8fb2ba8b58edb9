//go:build unix

package main

import (
	"io/fs"
	"syscall"
)

// diskSize is the blocks fi takes on disk.
func diskSize(fi fs.FileInfo) int64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Blocks * 512
	}
	return fi.Size()
}
