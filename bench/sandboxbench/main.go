//go:build linux

// Command sandboxbench measures what the sandbox costs per command: the wall
// time of `true` run plainly, through the sandbox helper (as the runner
// starts it, with and without namespaces), and through bubblewrap, printing
// medians and ratios; then where the helper's time goes, phase by phase
// (placeholders, the plan, namespaces, the supervisor forks,
// mounts, Landlock, seccomp), as the helper reports them with
// AGENT_LS_SANDBOX_TIMINGS. It is its own helper binary: `sandboxbench sandbox
// ARGS...` is `agent-ls sandbox ARGS...`.
//
//	go build -o /tmp/sb ./bench/sandboxbench && /tmp/sb -n 300 [-heap 512]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/sandbox"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "sandbox" {
		os.Exit(sandbox.Main(os.Args[2:]))
	}
	runs := flag.Int("n", 200, "runs per variant")
	warmup := flag.Int("warmup", 20, "untimed runs per variant")
	heapMiB := flag.Int("heap", 0, "MiB of live heap to hold first, like a long-running agent (spawn cost must not grow with it)")
	flag.Parse()
	heap := holdHeap(*heapMiB)

	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	cwd, present := roots()
	defer os.RemoveAll(cwd)
	defer os.RemoveAll(present)
	fmt.Println(sandbox.Probe().Summary())

	vs := variants(self, cwd, present)
	medians := timeVariants(vs, *warmup, *runs)
	runtime.KeepAlive(heap)
	fmt.Println()
	for i := 1; i < len(vs); i++ {
		fmt.Printf("%-56s %5.1fx plain, +%.2f ms\n", vs[i].name,
			float64(medians[i])/float64(medians[0]), stats.MS(medians[i]-medians[0]))
	}
	fmt.Println()
	phases(self, cwd, false, *runs)
	phases(self, cwd, true, *runs)
}

// holdHeap allocates and touches mib MiB, to be kept alive.
func holdHeap(mib int) [][]byte {
	heap := make([][]byte, 0, mib)
	for range mib {
		b := make([]byte, 1<<20)
		for i := 0; i < len(b); i += 4096 {
			b[i] = 1
		}
		heap = append(heap, b)
	}
	return heap
}

// roots makes the two working directories the commands run in: cwd,
// where .git, .agents and .agent-ls are missing (the dearer case: the
// helper puts placeholders on them), and present, where they exist.
func roots() (cwd, present string) {
	cwd, err := os.MkdirTemp("", "sandboxbench")
	if err != nil {
		fatal(err)
	}
	present, err = os.MkdirTemp("", "sandboxbench")
	if err != nil {
		fatal(err)
	}
	for _, n := range sandbox.ProtectedNames {
		if err := os.Mkdir(filepath.Join(present, n), 0o755); err != nil {
			fatal(err)
		}
	}
	return cwd, present
}

// variant is one way of running `true`.
type variant struct {
	name string
	cmd  func() runnable
}

// variants are `true` plainly (first: the others are compared with it),
// through the helper in both roots, without namespaces, and through
// bubblewrap where it is installed.
func variants(self, cwd, present string) []variant {
	truePath, err := exec.LookPath("true")
	if err != nil {
		fatal(err)
	}
	policy := func(dir string, noNS bool) func() runnable {
		return func() runnable {
			p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Cwd: dir, NoNamespace: noNS}
			cmd, err := sandbox.Command(context.Background(), p, []string{"true"}, os.Environ(), self)
			if err != nil {
				fatal(err)
			}
			return cmd
		}
	}
	vs := []variant{
		{"true (plain)", func() runnable { return exec.Command(truePath) }},
		{"agent-ls sandbox, namespaces, protected paths present", policy(present, false)},
		{"agent-ls sandbox, namespaces, protected paths missing", policy(cwd, false)},
		{"agent-ls sandbox, landlock+seccomp only", policy(cwd, true)},
	}
	if bwrap, err := exec.LookPath("bwrap"); err == nil {
		// The comparable set-up: the filesystem read-only, the workspace
		// writable, no network.
		vs = append(vs, variant{"bwrap --ro-bind / / --dev /dev --bind WS WS --unshare-net true", func() runnable {
			return exec.Command(bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--bind", cwd, cwd, "--unshare-net", truePath)
		}})
	} else {
		fmt.Println("bwrap not found: skipping the bubblewrap comparison")
	}
	return vs
}

// timeVariants runs the variants round-robin, so that load from elsewhere
// on the machine hits all of them alike, prints each one's times and
// returns their medians.
func timeVariants(vs []variant, warmup, runs int) []time.Duration {
	times := make([][]time.Duration, len(vs))
	for r := 0; r < warmup+runs; r++ {
		for i, v := range vs {
			cmd := v.cmd()
			start := time.Now()
			if out, err := cmd.CombinedOutput(); err != nil {
				fatal(fmt.Errorf("%s: %v: %s", v.name, err, out))
			}
			if r >= warmup {
				times[i] = append(times[i], time.Since(start))
			}
		}
	}
	medians := make([]time.Duration, len(vs))
	for i, v := range vs {
		ts := times[i]
		slices.Sort(ts)
		medians[i] = ts[len(ts)/2]
		fmt.Printf("%-56s median %6.2f ms  (min %.2f, p90 %.2f)\n", v.name,
			stats.MS(medians[i]), stats.MS(ts[0]), stats.MS(ts[len(ts)*9/10]))
	}
	return medians
}

// phases runs `true` through the runner with the helper reporting its
// phases (sandbox.TimingsEnv) and prints the median of each, in µs.
func phases(self, cwd string, noNS bool, runs int) {
	p := sandbox.Policy{Mode: sandbox.WorkspaceWrite, Cwd: cwd, NoNamespace: noNS}
	what := "namespaces, protected paths missing"
	if noNS {
		what = "landlock+seccomp only"
	}
	fmt.Printf("where the time goes (%s), median µs of %d runs:\n", what, runs)
	env := append(os.Environ(), sandbox.TimingsEnv+"=1")
	samples := map[string][]int{}
	var order []string
	add := func(name string, us int) {
		if _, ok := samples[name]; !ok {
			order = append(order, name)
		}
		samples[name] = append(samples[name], us)
	}
	for range runs {
		cmd, err := sandbox.Command(context.Background(), p, []string{"true"}, env, self)
		if err != nil {
			fatal(err)
		}
		var stderr strings.Builder
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			fatal(fmt.Errorf("%v: %s", err, stderr.String()))
		}
		add("total (runner's Start to Wait)", int(time.Since(start).Microseconds()))
		if !noNS {
			add("placeholders (runner: lock and create)", int(cmd.PlaceholderTime().Microseconds()))
		}
		add("plan (runner: roots, caches, rules, PATH lookup)", int(cmd.PlanTime().Microseconds()))
		_, line, ok := strings.Cut(stderr.String(), "timings (µs) ")
		if !ok {
			fatal(fmt.Errorf("no timings from the helper: %q", stderr.String()))
		}
		for _, f := range strings.Fields(line) {
			name, v, _ := strings.Cut(f, "=")
			us, _ := strconv.Atoi(v)
			add(phaseNames[name], us)
		}
	}
	for _, name := range order {
		v := samples[name]
		slices.Sort(v)
		fmt.Printf("  %-56s %6d\n", name, v[len(v)/2])
	}
}

var phaseNames = map[string]string{
	"namespaces": "helper: user+mount(+PID) namespaces, id maps",
	"supervisor": "helper: fork of the outer/init (or subreaper)",
	"plan":       "helper: reading the plan",
	"mounts":     "helper: read-only mounts, placeholders, /dev/shm",
	"checks":     "helper: chdir, descriptors, capabilities",
	"landlock":   "helper: Landlock ruleset",
	"seccomp":    "helper: seccomp filter (loading the compiled one)",
}

// runnable is an exec.Cmd or a sandbox.Cmd.
type runnable interface{ CombinedOutput() ([]byte, error) }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "sandboxbench:", err)
	os.Exit(1)
}
