//go:build !(linux || darwin)

package main

import "io"

// pollableStdin returns in: stdin is made pollable on Linux and macOS.
func pollableStdin(in io.Reader) (io.Reader, func()) { return in, func() {} }
