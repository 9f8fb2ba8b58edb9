package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// forkBomb forks children that sleep, at most 200 of them whatever the
// limit (so the test stays bounded where none holds), and says how many
// it had when fork was refused. The sandbox ends the sleepers when it
// exits.
const forkBomb = `import os, sys, time
n = 0
for i in range(200):
    try:
        pid = os.fork()
    except OSError as e:
        print("refused after", n, "errno", e.errno)
        sys.exit(0)
    if pid == 0:
        time.sleep(60)
        os._exit(0)
    n += 1
print("forked", n)
`

// TestForkBombEndsAtTheLimit: a command that forks without end is refused
// (EAGAIN) at the policy's process limit, a pids cgroup as root, and
// RLIMIT_NPROC for another user where no cgroup can be made; the cgroup
// is gone once the command is.
func TestForkBombEndsAtTheLimit(t *testing.T) {
	requireLandlock(t)
	py := python(t)
	const limit = 24
	for _, m := range nsModes {
		t.Run(m.name, func(t *testing.T) {
			m.setup(t)
			cwd, _ := workspace(t)
			r := runIn(t, Policy{Mode: WorkspaceWrite, Cwd: cwd, MaxProcesses: limit}, nil, py, "-c", forkBomb)
			t.Logf("%s", strings.TrimSpace(r.stdout))
			if r.code != 0 {
				t.Fatalf("%v", r)
			}
			got := regexp.MustCompile(`refused after (\d+) errno (\d+)`).FindStringSubmatch(r.stdout)
			if got == nil {
				t.Fatalf("ESCAPE: the fork bomb was never refused\n%v", r)
			}
			n, _ := strconv.Atoi(got[1])
			if n >= limit || got[2] != "11" {
				t.Errorf("refused after %d forks with errno %s, want fewer than %d and EAGAIN (11)", n, got[2], limit)
			}
			if pc := pidsCgroupParent(); pc.parent != "" {
				left, _ := filepath.Glob(filepath.Join(pc.parent, fmt.Sprintf("agent-ls-%d-*", os.Getpid())))
				if len(left) > 0 {
					t.Errorf("the commands' pids cgroups outlived them: %v", left)
				}
			}
		})
	}
}

// TestExplainProcessLimit: --explain says which process limit holds.
func TestExplainProcessLimit(t *testing.T) {
	c := Probe()
	out := Explain(Policy{Mode: WorkspaceWrite, Cwd: t.TempDir()}, c)
	want := "process limit: RLIMIT_NPROC"
	switch {
	case c.PidsCgroup != "":
		want = fmt.Sprintf("process limit: %d tasks (processes and threads) for the command and all it starts, by a pids", DefaultMaxProcesses)
	case os.Geteuid() == 0:
		want = "process limit: NONE"
	case c.Namespaces && nprocPerNamespace():
		want = fmt.Sprintf("process limit: %d tasks (processes and threads), by RLIMIT_NPROC", DefaultMaxProcesses)
	}
	if !strings.Contains(out, want) {
		t.Errorf("--explain lacks %q:\n%s", want, out)
	}
	t.Logf("pids cgroup %q (v%d) %s", c.PidsCgroup, c.PidsCgroupVersion, c.PidsCgroupNote)
}

// TestPidsDescriptorMustBeACgroup: the helper writes into the descriptor
// a plan names for the pids cgroup only when it is a cgroup's file.
func TestPidsDescriptorMustBeACgroup(t *testing.T) {
	requireLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("as another user a plan falls back to RLIMIT_NPROC")
	}
	cwd, _ := workspace(t)
	marker := filepath.Join(cwd, "ran")
	pl, _ := buildPlan(Policy{Mode: WorkspaceWrite, Cwd: cwd, NoNamespace: true}, []string{"sh", "-c", "echo ran > " + marker}, testEnv(), nil, false)
	if pl.fail != nil {
		t.Fatal(pl.fail.msg)
	}
	defer pl.close()
	if pl.pids == nil {
		t.Skip("no pids cgroup here")
	}
	victim := filepath.Join(cwd, "victim")
	f, err := os.OpenFile(victim, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	files := pl.files()
	files[len(files)-1] = f
	r := runPlan(t, cwd, false, pl.encode(), files...)
	if r.code != ExitSetupFailed || !strings.Contains(r.stderr, "not a cgroup file") || exists(marker) {
		t.Errorf("%v", r)
	}
	if b, _ := os.ReadFile(victim); len(b) != 0 {
		t.Errorf("the helper wrote %q into a file that is not a cgroup's", b)
	}
}
