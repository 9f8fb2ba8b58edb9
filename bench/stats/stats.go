// Package stats holds what the bench programs measure with: a process's
// memory and CPU time as the system counts them, the machine's load
// average, and the median, percentiles and milliseconds their figures
// are printed in.
package stats

import (
	"cmp"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Memory reads one memory field of /proc/PID/status (VmRSS, VmHWM: the
// kernel gives them in kB) in bytes.
func Memory(pid int, field string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err
		}
	}
	return 0, errors.New("no " + field)
}

// ResetPeak starts pid's VmHWM again from its current RSS.
func ResetPeak(pid int) error {
	return os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0)
}

// CPUTime is the CPU time process pid has used so far: the sum over its
// threads of the scheduler's count (0 where /proc does not say).
func CPUTime(pid int) time.Duration {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	var total time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		var ns int64
		if _, err := fmt.Sscan(string(b), &ns); err == nil {
			total += time.Duration(ns)
		}
	}
	return total
}

// LoadAvg is the machine's first n load averages (1, 5 and 15 minutes)
// as /proc/loadavg writes them, separated by spaces; "?" where it does
// not say.
func LoadAvg(n int) string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < max(n, 1) {
		return "?"
	}
	return strings.Join(f[:n], " ")
}

// Median is the middle of v, the upper one of the two middles when v has
// an even length (unlike Percentile(v, 50), the lower); zero for none. v
// is left as it was.
func Median[T cmp.Ordered](v []T) T {
	if len(v) == 0 {
		var zero T
		return zero
	}
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// Percentile is the p-th percentile of sorted by nearest rank: the
// smallest value that at least p% of the values do not exceed; zero for
// none.
func Percentile[T cmp.Ordered](sorted []T, p int) T {
	if len(sorted) == 0 {
		var zero T
		return zero
	}
	i := max((len(sorted)*p+99)/100-1, 0)
	return sorted[i]
}

// MS is d in milliseconds.
func MS(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
