//go:build !unix

package main

import "io/fs"

// diskSize is fi's size where block counts are not at hand.
func diskSize(fi fs.FileInfo) int64 { return fi.Size() }

// fileID names a file; not known here.
type fileID struct{}

// idOf: no file ids at hand, every link counts.
func idOf(fs.FileInfo) (fileID, bool) { return fileID{}, false }
