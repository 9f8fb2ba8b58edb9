//go:build !unix

package workspace

import "os"

// openNonblock opens path for reading. Outside Unix no file system entry
// makes an open wait (Windows' named pipes live apart, under \\.\pipe\,
// and opening one fails or connects at once); the type is checked after.
func openNonblock(path string) (*os.File, error) {
	return os.Open(path)
}
