//go:build unix

package stats

import (
	"syscall"
	"time"
)

// SelfCPU is the CPU time (user and system) this process has used so
// far.
func SelfCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
