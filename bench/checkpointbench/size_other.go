//go:build !unix

package main

import "io/fs"

// diskSize is fi's size where block counts are not at hand.
func diskSize(fi fs.FileInfo) int64 { return fi.Size() }
