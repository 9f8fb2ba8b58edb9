package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// DefaultMaxProcesses is how many tasks (processes and threads) a
// sandboxed command and everything it starts may have at once, unless the
// policy says otherwise: a fork bomb ends there, not at the machine's
// limit. It leaves room for parallel builds on large machines (go build,
// cargo, make -j with a job count, npm and jest workers each run a few
// dozen threads per process); beyond it fork and clone fail with EAGAIN.
const DefaultMaxProcesses = 4096

func (p Policy) maxProcesses() int {
	if p.MaxProcesses > 0 {
		return p.MaxProcesses
	}
	return DefaultMaxProcesses
}

// The process limit is a pids cgroup of the command's own where this
// process may make one: cgroup v2 beside agent-ls's own cgroup (a
// delegated subtree, or anywhere as root), or the v1 pids hierarchy below
// agent-ls's cgroup there. The runner makes it, sets pids.max and hands
// the helper its cgroup.procs; the helper moves itself in before the
// command runs, and the runner removes it once the command is over.
// Elsewhere RLIMIT_NPROC stands in, which the kernel does not apply to
// root (nor to CAP_SYS_RESOURCE, which the command lacks): inside the
// command's user namespace (Linux 5.14 and later) it counts the command's
// tasks alone; without one it counts every task of the user, so it is set
// that many above what the user runs when the command starts.
type pidsCgroups struct {
	parent  string // where the commands' cgroups are made; "" when nowhere
	version int
	note    string // why not, when parent is ""
}

var (
	pidsOnce  sync.Once
	pidsFound pidsCgroups
	pidsSeq   atomic.Uint64
)

// pidsCgroupParent finds, once per process, where commands' pids cgroups
// can be made, trying it with a cgroup that is removed at once; stale
// cgroups of agent-ls processes that are gone are removed on the way.
func pidsCgroupParent() pidsCgroups {
	pidsOnce.Do(func() {
		parent, version, err := findPidsParent()
		if err == nil {
			probe := filepath.Join(parent, fmt.Sprintf("agent-ls-%d-probe", os.Getpid()))
			if err = os.Mkdir(probe, 0o755); err == nil {
				err = os.Remove(probe)
			}
		}
		if err != nil {
			pidsFound.note = err.Error()
			return
		}
		pidsFound.parent, pidsFound.version = parent, version
		removeStaleCgroups(parent)
	})
	return pidsFound
}

// findPidsParent reads this process's cgroups and the mounts.
func findPidsParent() (string, int, error) {
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return "", 0, err
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return "", 0, err
	}
	var v2Path, v1Path string
	for _, line := range strings.Split(string(cg), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				v1Path = parts[2]
			}
		}
	}
	var v2Mount, v2Root, v1Mount, v1Root string
	s := bufio.NewScanner(bytes.NewReader(mi))
	for s.Scan() {
		// ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS ... - FSTYPE SOURCE SUPEROPTS
		pre, post, ok := strings.Cut(s.Text(), " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 3 {
			continue
		}
		switch {
		case g[0] == "cgroup2" && v2Mount == "":
			v2Root, v2Mount = f[3], unescapeMount(f[4])
		case g[0] == "cgroup" && v1Mount == "" && hasOption(g[2], "pids"):
			v1Root, v1Mount = f[3], unescapeMount(f[4])
		}
	}
	if v2Mount != "" && v2Path != "" {
		own := filepath.Join(v2Mount, relCgroup(v2Path, v2Root))
		if own == filepath.Clean(v2Mount) {
			if hasWord(own, "cgroup.subtree_control", "pids") {
				return own, 2, nil
			}
		} else if hasWord(own, "cgroup.controllers", "pids") {
			// A cgroup with processes cannot pass controllers on to
			// children: the command's goes beside it.
			return filepath.Dir(own), 2, nil
		}
	}
	if v1Mount != "" && v1Path != "" {
		return filepath.Join(v1Mount, relCgroup(v1Path, v1Root)), 1, nil
	}
	return "", 0, errors.New("no pids cgroup controller is available to this process")
}

func relCgroup(path, root string) string {
	if root != "/" && strings.HasPrefix(path, root) {
		return strings.TrimPrefix(path, root)
	}
	return path
}

func hasOption(opts, name string) bool {
	for _, o := range strings.Split(opts, ",") {
		if o == name {
			return true
		}
	}
	return false
}

func hasWord(dir, file, word string) bool {
	b, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil {
		return false
	}
	for _, w := range strings.Fields(string(b)) {
		if w == word {
			return true
		}
	}
	return false
}

// unescapeMount undoes mountinfo's octal escapes (\040 for a space).
func unescapeMount(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+3 < len(s) {
			if v, err := strconv.ParseUint(s[i+1:i+4], 8, 8); err == nil {
				b.WriteByte(byte(v))
				i += 3
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// removeStaleCgroups removes the commands' cgroups left by agent-ls
// processes killed before they could (rmdir fails on one still in use).
func removeStaleCgroups(parent string) {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), "agent-ls-")
		if !ok || !e.IsDir() {
			continue
		}
		pidStr, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidStr)
		if err != nil || pid <= 0 || unix.Kill(pid, 0) != unix.ESRCH {
			continue
		}
		os.Remove(filepath.Join(parent, e.Name()))
	}
}

// commandCgroup makes the pids cgroup of one command, limited to limit
// tasks, and opens its cgroup.procs for the helper.
func commandCgroup(parent string, limit int) (string, *os.File, error) {
	dir := filepath.Join(parent, fmt.Sprintf("agent-ls-%d-%d", os.Getpid(), pidsSeq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(limit)), 0); err != nil {
		os.Remove(dir)
		return "", nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		os.Remove(dir)
		return "", nil, err
	}
	return dir, f, nil
}

// limitProcesses puts the process limit in the plan: a cgroup of the
// command's own (removed by removeCgroup once the command is over), and
// for a user other than root an RLIMIT_NPROC, which the helper sets where
// it has no cgroup to join.
func (pl *plan) limitProcesses(p Policy, inNS bool) {
	limit := p.maxProcesses()
	if pc := pidsCgroupParent(); pc.parent != "" {
		if dir, f, err := commandCgroup(pc.parent, limit); err == nil {
			pl.pids, pl.pidsDir = f, dir
		}
	}
	// Also with a cgroup: should the helper fail to join it, this holds.
	if os.Geteuid() != 0 {
		pl.nproc = uint64(limit)
		if !inNS || !nprocPerNamespace() {
			pl.nproc += uint64(userTasks(os.Getuid()))
		}
	}
}

// removeCgroup removes the command's cgroup, empty once the helper is
// gone (the last process of a PID namespace is reaped before its PID 1
// is, and the subreaper reaps everything before it exits).
func (pl *plan) removeCgroup() {
	if pl.pidsDir != "" {
		os.Remove(pl.pidsDir)
	}
}

// nprocPerNamespace: RLIMIT_NPROC counts per user namespace from Linux
// 5.14 on (the ucounts rework); before, every task of the user counts.
func nprocPerNamespace() bool {
	var u unix.Utsname
	if unix.Uname(&u) != nil {
		return false
	}
	var major, minor int
	fmt.Sscanf(unix.ByteSliceToString(u.Release[:]), "%d.%d", &major, &minor)
	return major > 5 || (major == 5 && minor >= 14)
}

// userTasks counts the tasks (threads included) whose real user is uid,
// as RLIMIT_NPROC counts them.
func userTasks(uid int) int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if e.Name()[0] < '0' || e.Name()[0] > '9' {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/status")
		if err != nil {
			continue
		}
		var real, threads int = -1, 0
		for _, line := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				if f := strings.Fields(v); len(f) > 0 {
					real, _ = strconv.Atoi(f[0])
				}
			} else if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
		if real == uid {
			n += threads
		}
	}
	return n
}

// explainProcessLimit says for --explain which process limit holds.
func explainProcessLimit(line func(string, ...any), p Policy, c Capabilities) {
	limit := p.maxProcesses()
	switch {
	case c.PidsCgroup != "":
		line("process limit: %d tasks (processes and threads) for the command and all it starts, by a pids", limit)
		line("           cgroup (v%d) of its own below %s; beyond it fork fails (EAGAIN)", c.PidsCgroupVersion, c.PidsCgroup)
	case os.Geteuid() == 0:
		line("process limit: NONE: no pids cgroup can be made here (%s),", c.PidsCgroupNote)
		line("           and root is exempt from RLIMIT_NPROC")
	case c.Namespaces && !p.NoNamespace && nprocPerNamespace():
		line("process limit: %d tasks (processes and threads), by RLIMIT_NPROC, which counts the command's", limit)
		line("           user namespace alone (no pids cgroup here: %s)", c.PidsCgroupNote)
	default:
		line("process limit: RLIMIT_NPROC, %d tasks above what this user runs when the command starts (the", limit)
		line("           kernel counts all of the user's processes; no pids cgroup here: %s)", c.PidsCgroupNote)
	}
}

// processLimitSummary is the process limit in the agent's one-line summary.
func processLimitSummary(c Capabilities) string {
	switch {
	case c.PidsCgroup != "":
		return fmt.Sprintf("a command and all it starts may have at most %d processes and threads (pids cgroup)", DefaultMaxProcesses)
	case os.Geteuid() == 0:
		return "no process limit (root, and no pids cgroup here)"
	}
	return fmt.Sprintf("a command and all it starts may have about %d processes and threads (RLIMIT_NPROC)", DefaultMaxProcesses)
}
