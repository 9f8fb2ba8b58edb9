// Package proctest finds the processes a test left running, by a marker:
// the test starts them under a unique argv[0] (bash's `exec -a MARKER`),
// which shows in /proc whatever PID namespace they run in, and then checks
// that they are gone.
package proctest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Marker returns a word unique to one test.
func Marker() string {
	b := make([]byte, 8)
	rand.Read(b)
	return "agent-ls-linger-" + hex.EncodeToString(b)
}

// Find lists the live (not zombie) processes whose command line contains
// marker.
func Find(marker string) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !strings.Contains(string(cmdline), marker) {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if s := string(stat); err == nil {
			if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) && s[i+2] == 'Z' {
				continue
			}
		}
		out = append(out, pid)
	}
	return out
}

// Gone fails the test if a process carrying marker is still alive after a
// generous deadline (the first look passes at once when nothing is left),
// and kills what it finds, so that a failure leaves nothing behind either.
// It waits for each process found to exit (WaitExit), then looks again,
// for any it started meanwhile.
func Gone(t testing.TB, marker string) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		pids := Find(marker)
		if len(pids) == 0 {
			return
		}
		for _, p := range pids {
			if _, err := WaitExit(p, time.Until(deadline)); err != nil {
				t.Fatalf("waiting for process %d: %v", p, err)
			}
		}
		if time.Now().After(deadline) {
			pids = Find(marker)
			for _, p := range pids {
				if proc, err := os.FindProcess(p); err == nil {
					_ = proc.Kill()
				}
			}
			if len(pids) > 0 {
				t.Fatalf("SURVIVORS: processes %v outlived the command", pids)
			}
			return
		}
	}
}
