package sandbox

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func init() {
	// What a starting agent-ls does first in its workspace.
	attacks["startup"] = func(a []string) error { return RemovePlaceholders(Policy{Cwd: a[0]}) }
	// Placeholders for the root a[0], put up and taken down from inside a
	// sandbox, where the lock directory is read-only.
	attacks["hold-placeholders"] = func(a []string) error {
		held, release, err := holdPlaceholders(Policy{Mode: WorkspaceWrite, Cwd: a[0]}.protectedPaths(""))
		if err != nil {
			return err
		}
		fmt.Println("held", len(held))
		release()
		for _, n := range ProtectedNames {
			if exists(filepath.Join(a[0], n)) {
				return fmt.Errorf("%s left behind", n)
			}
		}
		return nil
	}
}

// agentProcess is the test binary playing a separate agent-ls process that
// runs one command in cwd through the real runner.
type agentProcess struct {
	cmd   *exec.Cmd
	stdin io.WriteCloser
	out   *bufio.Reader
}

func startAgent(t *testing.T, cwd string, argv ...string) *agentProcess {
	t.Helper()
	cmd := exec.Command(selfPath(t), append([]string{"attack", "as-runner", cwd}, argv...)...)
	cmd.Env = testEnv()
	cmd.Stderr = os.Stderr
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return &agentProcess{cmd: cmd, stdin: stdin, out: bufio.NewReader(stdout)}
}

// waitFor reads the agent's output up to a line equal to want.
func (a *agentProcess) waitFor(t *testing.T, want string) {
	t.Helper()
	for {
		line, err := a.out.ReadString('\n')
		if err != nil {
			t.Fatalf("agent output ended before %q: %v", want, err)
		}
		if strings.TrimSpace(line) == want {
			return
		}
	}
}

func runAgent(t *testing.T, args ...string) string {
	t.Helper()
	cmd := exec.Command(selfPath(t), args...)
	cmd.Env = testEnv()
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func hostPlaceholders(t *testing.T, cwd string) []string {
	t.Helper()
	var found []string
	for _, n := range ProtectedNames {
		if exists(filepath.Join(cwd, n)) {
			found = append(found, n)
		}
	}
	return found
}

// TestSecondProcessKeepsTheFirstsProtection: while one agent-ls process
// runs a command, a second one starting in the same workspace (and running
// commands of its own) removes nothing; the first command still cannot
// create .git or write .agents/AGENTS.md; and the last one out leaves the
// workspace as it found it.
func TestSecondProcessKeepsTheFirstsProtection(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	script := `echo ready; read line
git init -q . && echo GIT-INIT-WORKED
mkdir -p .agents; echo obey > .agents/AGENTS.md && echo AGENTS-WRITTEN
echo pwned > .agent-ls/config.toml && echo CONFIG-WRITTEN
echo finished`
	first := startAgent(t, cwd, "bash", "-c", script)
	first.waitFor(t, "ready")
	if got := hostPlaceholders(t, cwd); len(got) != 3 {
		t.Fatalf("placeholders while the first command runs: %v", got)
	}
	// The second process starts, and runs a command that shares the
	// placeholders, twice over.
	if out := runAgent(t, "attack", "startup", cwd); !strings.Contains(out, "done") {
		t.Fatalf("start-up of the second process: %s", out)
	}
	for range 2 {
		out := runAgent(t, "attack", "as-runner", cwd, "sh", "-c", "test -c .git && test -d .agents && echo masked")
		if !strings.Contains(out, "masked") {
			t.Errorf("the second process's command did not get the shared placeholders: %s", out)
		}
	}
	if got := hostPlaceholders(t, cwd); len(got) != 3 {
		t.Errorf("ESCAPE: the second process removed the first's placeholders, left %v", got)
	}
	first.stdin.Write([]byte("go\n"))
	first.stdin.Close()
	rest, _ := io.ReadAll(first.out)
	first.cmd.Wait()
	t.Logf("first command:\n%s", rest)
	if !strings.Contains(string(rest), "finished") {
		t.Fatalf("the first command did not run to its end:\n%s", rest)
	}
	for _, bad := range []string{"GIT-INIT-WORKED", "AGENTS-WRITTEN", "CONFIG-WRITTEN"} {
		if strings.Contains(string(rest), bad) {
			t.Errorf("ESCAPE: %s", bad)
		}
	}
	if got := hostPlaceholders(t, cwd); len(got) != 0 {
		t.Errorf("left behind after the last command: %v", got)
	}
}

// TestKilledProcessLeavesPlaceholdersForTheNextStart: kill -9 cannot
// clean up; the next start does, and only once the owner is dead.
func TestKilledProcessLeavesPlaceholdersForTheNextStart(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	// The user's own empty .agent-ls is never taken for a placeholder.
	if err := os.Mkdir(filepath.Join(cwd, ".agent-ls"), 0o755); err != nil {
		t.Fatal(err)
	}
	first := startAgent(t, cwd, "bash", "-c", "echo ready; exec sleep 1000")
	first.waitFor(t, "ready")
	runAgent(t, "attack", "startup", cwd)
	if got := hostPlaceholders(t, cwd); len(got) != 3 {
		t.Fatalf("a start removed a live process's placeholders: %v", got)
	}
	first.cmd.Process.Kill()
	first.cmd.Wait()
	if got := hostPlaceholders(t, cwd); len(got) != 3 {
		t.Fatalf("after kill -9 the placeholders should still be there (nobody could remove them), found %v", got)
	}
	if out := runAgent(t, "attack", "startup", cwd); !strings.Contains(out, "done") {
		t.Fatalf("next start: %s", out)
	}
	if got := hostPlaceholders(t, cwd); len(got) != 1 || got[0] != ".agent-ls" {
		t.Errorf("after the next start want only the user's .agent-ls, found %v", got)
	}
	if ents, _ := os.ReadDir(lockDir()); len(ents) != 0 {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Logf("lock files left (other tests may be running): %v", names)
	}
}

// TestLockDirReadOnlyInside: when the lock directory falls inside a
// writable root (as /tmp/agent-ls-placeholders-UID does for a user without
// /run/user/UID), a command cannot delete a lock file, which would let the
// next agent-ls take live placeholders for abandoned ones.
func TestLockDirReadOnlyInside(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	dir, err := ensureLockDir()
	if err != nil {
		t.Fatal(err)
	}
	p := Policy{Cwd: cwd, WritableRoots: []string{dir}}
	r := runIn(t, p, nil, "sh", "-c", "ls "+dir+"/*.lock && for f in "+dir+"/*.lock; do rm -f $f && echo REMOVED; done; touch "+dir+"/x && echo WROTE")
	t.Logf("%v", r)
	if strings.Contains(r.stdout, "REMOVED") || strings.Contains(r.stdout, "WROTE") || !strings.Contains(r.stderr, "Read-only file system") {
		t.Errorf("ESCAPE: the lock directory is writable inside the sandbox\n%v", r)
	}
	if got := hostPlaceholders(t, cwd); len(got) != 0 {
		t.Errorf("left behind: %v", got)
	}
}

// TestPlaceholdersWithoutTheLockDir: where the lock directory cannot be
// written (an agent-ls run inside another's sandbox), placeholders still
// go up and come down, for the command alone.
func TestPlaceholdersWithoutTheLockDir(t *testing.T) {
	requireLandlock(t)
	nsModes[0].setup(t)
	cwd, _ := workspace(t)
	nested := filepath.Join(cwd, "nested")
	if err := os.Mkdir(nested, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ensureLockDir(); err != nil {
		t.Fatal(err)
	}
	r := attack(t, Policy{Cwd: cwd}, "hold-placeholders", nested)
	// .git's socket cannot be bound there with the network off; the
	// directories can.
	if r.code != 0 || !(strings.Contains(r.stdout, "held 2") || strings.Contains(r.stdout, "held 3")) {
		t.Errorf("inside the sandbox:\n%v", r)
	}
}
