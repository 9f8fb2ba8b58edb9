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

// fileID names a file (not a link to it).
type fileID struct{ dev, ino uint64 }

// idOf is fi's file, when known.
func idOf(fi fs.FileInfo) (fileID, bool) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return fileID{uint64(st.Dev), uint64(st.Ino)}, true
	}
	return fileID{}, false
}
