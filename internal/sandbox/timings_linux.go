package sandbox

import (
	"fmt"
	"os"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// TimingsEnv, set to a non-empty value in the command's environment, makes
// the helper print where its start-up time went, as one line on stderr
// starting with "agent-ls sandbox: timings", just before it execs the
// command (bench/sandboxbench reads it).
const TimingsEnv = "AGENT_LS_SANDBOX_TIMINGS"

// timings records the helper's phases on the monotonic clock.
type timings struct {
	on     bool
	last   time.Duration
	phases []string
}

func newTimings() *timings {
	t := &timings{on: os.Getenv(TimingsEnv) != ""}
	if !t.on {
		return t
	}
	now := monotonic()
	ns, fork, forked := startTimes()
	if forked != 0 {
		t.add("namespaces", ns)
		t.add("supervisor", fork)
		t.add("runtime", now-forked)
	}
	t.last = now
	return t
}

func (t *timings) add(name string, d time.Duration) {
	t.phases = append(t.phases, fmt.Sprintf("%s=%d", name, d.Microseconds()))
}

// mark closes the phase that began at the previous mark.
func (t *timings) mark(name string) {
	if !t.on {
		return
	}
	now := monotonic()
	t.add(name, now-t.last)
	t.last = now
}

func (t *timings) print() {
	if t.on {
		fmt.Fprintf(os.Stderr, "%stimings (µs) %s\n", helperPrefix, strings.Join(t.phases, " "))
	}
}

func monotonic() time.Duration {
	var ts unix.Timespec
	_ = unix.ClockGettime(unix.CLOCK_MONOTONIC, &ts)
	return time.Duration(ts.Nano())
}
