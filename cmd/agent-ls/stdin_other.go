//go:build !unix

package main

import "io"

// pollableStdin returns in: the poller reads pipes on Unix only.
func pollableStdin(in io.Reader) (io.Reader, func()) { return in, func() {} }
