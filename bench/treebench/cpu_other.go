//go:build !unix

package main

import "time"

// selfCPU is 0 where the process's CPU time is not read: the CPU
// columns then show nothing.
func selfCPU() time.Duration { return 0 }
