package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Beside the many-documents row: the CPU time a fresh Go process spends
// only making and keeping manyDocs texts of manyDocSize bytes. Where first
// touching memory is dear (a virtual machine whose page faults go through
// the hypervisor), it is most of what a didOpen costs the server, and no
// server that keeps the texts goes below it.

// keepTextsEnv, set, makes this program measure that and exit.
const keepTextsEnv = "BIGMSGBENCH_KEEP_TEXTS"

// runKeepTexts makes the texts and prints the CPU time it took, in ns.
func runKeepTexts() {
	src := strings.Repeat(strings.Repeat("y", 79)+"\n", manyDocSize/80)
	cpu0 := cpuTimeOf(os.Getpid())
	keep := make([]string, 0, manyDocs)
	for range manyDocs {
		var b strings.Builder
		b.Grow(len(src))
		b.WriteString(src)
		keep = append(keep, b.String())
	}
	fmt.Println((cpuTimeOf(os.Getpid()) - cpu0).Nanoseconds())
	runtime.KeepAlive(keep)
}

// keepTexts runs runKeepTexts in a fresh process and returns its CPU time for
// each text.
func keepTexts() (time.Duration, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), keepTextsEnv+"=1")
	out, err := cmd.Output()
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(strings.TrimSpace(string(out)), 10, 64)
	return time.Duration(ns) / manyDocs, err
}

// cpuTimeOf is the CPU time process pid has used so far: the sum over
// its threads of the scheduler's count (0 where /proc does not say).
func cpuTimeOf(pid int) time.Duration {
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
