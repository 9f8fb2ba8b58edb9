package stats

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []int
		want int
	}{
		{nil, 0},
		{[]int{7}, 7},
		{[]int{3, 1, 2}, 2},
		{[]int{4, 1, 3, 2}, 3}, // the upper middle
	} {
		in := slices.Clone(c.in)
		if got := Median(in); got != c.want {
			t.Errorf("Median(%v) = %d, want %d", c.in, got, c.want)
		}
		if !slices.Equal(in, c.in) {
			t.Errorf("Median(%v) changed its argument to %v", c.in, in)
		}
	}
}

func TestPercentile(t *testing.T) {
	ten := []time.Duration{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		sorted []time.Duration
		p      int
		want   time.Duration
	}{
		{nil, 50, 0},
		{ten, 0, 1},
		{ten, 50, 5}, // the lower middle
		{ten, 90, 9},
		{ten, 99, 10},
		{ten, 100, 10},
		{ten[:7], 90, 7},
		{ten[:1], 50, 1},
	} {
		if got := Percentile(c.sorted, c.p); got != c.want {
			t.Errorf("Percentile(%v, %d) = %v, want %v", c.sorted, c.p, got, c.want)
		}
	}
}

func TestMS(t *testing.T) {
	if got := MS(1500 * time.Microsecond); got != 1.5 {
		t.Errorf("MS(1.5ms) = %v", got)
	}
	if got := MS(1234567); got != 1.234567 {
		t.Errorf("MS(1234567ns) = %v", got)
	}
}

func TestProc(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("no /proc")
	}
	rss, err := Memory(os.Getpid(), "VmRSS")
	if err != nil || rss <= 0 || rss%1024 != 0 {
		t.Errorf("VmRSS %d bytes, %v", rss, err)
	}
	if _, err := Memory(os.Getpid(), "VmNone"); err == nil || err.Error() != "no VmNone" {
		t.Errorf("a missing field: %v", err)
	}
	if _, err := Memory(-1, "VmRSS"); err == nil {
		t.Error("no error for a process that does not exist")
	}
	if cpu := CPUTime(os.Getpid()); cpu <= 0 {
		t.Errorf("CPUTime of this process %v", cpu)
	}
	if cpu := SelfCPU(); cpu <= 0 {
		t.Errorf("SelfCPU %v", cpu)
	}
	for n := 1; n <= 3; n++ {
		if l := strings.Fields(LoadAvg(n)); len(l) != n {
			t.Errorf("LoadAvg(%d) = %q", n, l)
		}
	}
}
