package main

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
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
	cpu0 := stats.CPUTime(os.Getpid())
	keep := make([]string, 0, manyDocs)
	for range manyDocs {
		var b strings.Builder
		b.Grow(len(src))
		b.WriteString(src)
		keep = append(keep, b.String())
	}
	fmt.Println((stats.CPUTime(os.Getpid()) - cpu0).Nanoseconds())
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
