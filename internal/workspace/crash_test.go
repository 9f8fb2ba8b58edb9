//go:build unix

package workspace

import (
	"github.com/agent-ls/agent-ls/internal/testenv"

	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// The crash tests run this test binary again as a helper process that
// applies a scripted change set and kills itself with SIGKILL at one step
// (crashAtEnv), or stops there and waits to be killed (pauseAtEnv).
const (
	helperRootEnv = "AGENT_LS_TEST_CRASH_ROOT"
	crashAtEnv    = "AGENT_LS_TEST_CRASH_AT"
	pauseAtEnv    = "AGENT_LS_TEST_PAUSE_AT"
)

func TestMain(m *testing.M) {
	if root := os.Getenv(helperRootEnv); root != "" {
		os.Exit(crashHelper(root))
	}
	// Journals of this package's tests stay in a directory of their own.
	os.Exit(testenv.RunWithPrivateState(m))
}

// crashHelper applies the scripted change set under root, dying or
// pausing at the step the environment names.
func crashHelper(root string) int {
	crashAt, _ := strconv.Atoi(os.Getenv(crashAtEnv))
	pauseAt, _ := strconv.Atoi(os.Getenv(pauseAtEnv))
	n := 0
	stepHook = func() {
		n++
		switch n {
		case crashAt:
			_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {}
		case pauseAt:
			fmt.Println("paused")
			select {}
		}
	}
	if err := WriteToDisk(scriptedSet(root)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 3
	}
	return 0
}

// scriptedTree is the tree before the scripted set: 40 files to change
// and one it leaves alone.
func scriptedTree() map[string]file {
	tree := map[string]file{"other.txt": {content: "untouched\n"}}
	for i := range 40 {
		mode := fs.FileMode(0o644)
		if i%7 == 0 {
			mode = 0o755
		}
		tree[fmt.Sprintf("src/f%02d.txt", i)] = file{content: fmt.Sprintf("old %d\n", i), mode: mode}
	}
	return tree
}

// scriptedSet is 50 changes: 30 updates, 10 additions (in directories
// that do not exist yet), 5 deletions and 5 moves.
func scriptedSet(root string) *ChangeSet {
	cs := &ChangeSet{Label: "scripted"}
	p := func(name string) string { return filepath.Join(root, name) }
	old := func(i int) []byte { return []byte(fmt.Sprintf("old %d\n", i)) }
	for i := range 30 {
		cs.Changes = append(cs.Changes, FileChange{Kind: Update, Path: p(fmt.Sprintf("src/f%02d.txt", i)),
			OldContent: old(i), NewContent: []byte(fmt.Sprintf("new %d\n", i))})
	}
	for i := range 10 {
		cs.Changes = append(cs.Changes, FileChange{Kind: Add, Path: p(fmt.Sprintf("added/d%d/g%02d.txt", i%3, i)),
			NewContent: []byte(fmt.Sprintf("added %d\n", i))})
	}
	for i := 30; i < 35; i++ {
		cs.Changes = append(cs.Changes, FileChange{Kind: Delete, Path: p(fmt.Sprintf("src/f%02d.txt", i)), OldContent: old(i)})
	}
	for i := 35; i < 40; i++ {
		cs.Changes = append(cs.Changes, FileChange{Kind: Move, Path: p(fmt.Sprintf("src/f%02d.txt", i)),
			NewPath: p(fmt.Sprintf("moved/m%02d.txt", i)), OldContent: old(i), NewContent: []byte(fmt.Sprintf("moved %d\n", i))})
	}
	return cs
}

// scriptedAfter is the tree once the scripted set is applied.
func scriptedAfter() map[string]file {
	tree := scriptedTree()
	for i := range 30 {
		name := fmt.Sprintf("src/f%02d.txt", i)
		tree[name] = file{content: fmt.Sprintf("new %d\n", i), mode: tree[name].mode}
	}
	for i := range 10 {
		tree[fmt.Sprintf("added/d%d/g%02d.txt", i%3, i)] = file{content: fmt.Sprintf("added %d\n", i)}
	}
	for i := 30; i < 40; i++ {
		name := fmt.Sprintf("src/f%02d.txt", i)
		if i >= 35 {
			tree[fmt.Sprintf("moved/m%02d.txt", i)] = file{content: fmt.Sprintf("moved %d\n", i), mode: tree[name].mode}
		}
		delete(tree, name)
	}
	return tree
}

func startHelper(t *testing.T, root string, env ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), append([]string{helperRootEnv + "=" + root}, env...)...)
	return cmd
}

func journalFiles(t *testing.T) []string {
	t.Helper()
	dir, err := JournalDir()
	if err != nil {
		t.Fatal(err)
	}
	names, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	var out []string
	for _, n := range names {
		out = append(out, n.Name())
	}
	return out
}

// TestCrashAtEveryStep kills a process applying a 50-file change set at
// every step in turn, recovers, and checks that every file of the set is
// all old or all new, with no temporary file and no journal left, and
// that the user is told once.
func TestCrashAtEveryStep(t *testing.T) {
	before, after := withDirs(scriptedTree()), withDirs(scriptedAfter())
	forward, back := 0, 0
	for step := 1; ; step++ {
		root := t.TempDir()
		makeTree(t, root, scriptedTree())
		cmd := startHelper(t, root, fmt.Sprintf("%s=%d", crashAtEnv, step))
		out, err := cmd.CombinedOutput()
		if err == nil {
			// The set ran to its end before this step: every point is tested.
			if step < 100 {
				t.Fatalf("only %d crash points in a 50-file set", step-1)
			}
			t.Logf("killed at each of %d steps: %d rolled back, %d rolled forward, %d after the journal was gone",
				step-1, back, forward, step-1-back-forward)
			sameTree(t, readTree(t, root), after)
			return
		}
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
			t.Fatalf("step %d: helper ended with %v, not killed: %s", step, err, out)
		}
		got, err := Recover()
		if err != nil {
			t.Fatalf("step %d: Recover: %v", step, err)
		}
		tree := readTree(t, root)
		switch {
		case len(got) == 0:
			// Killed after the journal was removed: the set was done.
			sameTree(t, tree, after)
		case len(got) > 1:
			t.Fatalf("step %d: %d sets recovered, want 1", step, len(got))
		case got[0].Forward:
			forward++
			sameTree(t, tree, after)
		default:
			back++
			sameTree(t, tree, before)
		}
		if len(got) == 1 && (len(got[0].Files) != 55 || len(got[0].Conflicts) != 0 || got[0].Message() == "") {
			t.Fatalf("step %d: recovered %d files, conflicts %v", step, len(got[0].Files), got[0].Conflicts)
		}
		if j := journalFiles(t); len(j) != 0 {
			t.Fatalf("step %d: journal left: %v", step, j)
		}
		if again, err := Recover(); err != nil || len(again) != 0 {
			t.Fatalf("step %d: second Recover = %v, %v; want nothing", step, again, err)
		}
		if t.Failed() {
			t.Fatalf("step %d: tree is neither all old nor all new", step)
		}
	}
}

// TestRecoverLeavesALiveWriterAlone pauses a writer process after its
// commit and checks that recovery in another process leaves its set
// alone until it dies, then rolls it forward.
func TestRecoverLeavesALiveWriterAlone(t *testing.T) {
	root := t.TempDir()
	makeTree(t, root, scriptedTree())
	// The steps: the journal, 5 new directories (added, added/d0..d2,
	// moved), 45 temporary files (30 updates, 10 additions, 5 move
	// destinations), the commit, then renames and removals.
	commit := 1 + 5 + 45 + 1
	cmd := startHelper(t, root, fmt.Sprintf("%s=%d", pauseAtEnv, commit+10))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || strings.TrimSpace(line) != "paused" {
		t.Fatalf("helper said %q, %v", line, err)
	}
	got, err := Recover()
	if err != nil || len(got) != 0 {
		t.Fatalf("Recover with the writer alive = %v, %v; want nothing done", got, err)
	}
	if j := journalFiles(t); len(j) != 1 {
		t.Fatalf("journal of the live writer: %v, want one", j)
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	got, err = Recover()
	if err != nil || len(got) != 1 || !got[0].Forward {
		t.Fatalf("Recover after the writer died = %+v, %v; want one set rolled forward", got, err)
	}
	sameTree(t, readTree(t, root), withDirs(scriptedAfter()))
}

// TestRecoverSweepsTempsOfTheDeadProcess checks that a temporary file the
// dead writer left beside the set's files (say, from an undo it was
// doing) goes too, and another process's does not.
func TestRecoverSweepsTempsOfTheDeadProcess(t *testing.T) {
	root := t.TempDir()
	makeTree(t, root, scriptedTree())
	cmd := startHelper(t, root, crashAtEnv+"=3")
	if err := cmd.Run(); err == nil {
		t.Fatal("helper was not killed")
	}
	pid := cmd.ProcessState.Pid()
	stray := filepath.Join(root, "src", fmt.Sprintf(".f00.txt.agent-ls-%d-99", pid))
	foreign := filepath.Join(root, "src", fmt.Sprintf(".f00.txt.agent-ls-%d-99", pid+1))
	for _, p := range []string{stray, foreign} {
		if err := os.WriteFile(p, []byte("partial"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := Recover(); err != nil || len(got) != 1 || got[0].Forward {
		t.Fatalf("Recover = %+v, %v; want one set rolled back", got, err)
	}
	if _, err := os.Stat(stray); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("temporary file of the dead process left: %v", err)
	}
	if _, err := os.Stat(foreign); err != nil {
		t.Errorf("temporary file of another process removed: %v", err)
	}
}
