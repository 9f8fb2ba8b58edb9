//go:build unix

package agent

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// crashFiles is how many files the helper's turn changes by a command.
const crashFiles = 300

func rewindHelper(dir string) int {
	m := &scriptedModel{}
	m.add(callTools(shellCall("s1", "sed -i s/old/new/ f*.txt")), say("m1", "done"))
	reg, err := tools.NewRegistry(tools.Builtin()...)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	mgr, err := NewManager(Options{Defaults: Defaults{ModelName: "test-model"}, Model: m, Frontend: newRecorder(), Tools: reg, Cwd: dir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	info, err := mgr.NewSession(SessionOptions{ApprovalPolicy: policy.Never, SandboxMode: policy.DangerFullAccess})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	turn, err := mgr.StartTurn(info.SessionID, TurnInput{Prompt: "change them all"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	<-turn.Done()
	fmt.Println("ready")
	bufio.NewReader(os.Stdin).ReadString('\n')
	if _, err := mgr.Rewind(context.Background(), info.SessionID, turn.ID(), ""); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Println("rewound")
	return 0
}

// TestRewindKilledMidwayIsAllOrNothing: agent-ls is killed with SIGKILL
// while a rewind writes 300 files (as soon as its journal appears); once
// the journal is recovered (as agent-ls does when it starts), every file
// is as the turn left it or every file is as it was before the turn.
func TestRewindKilledMidwayIsAllOrNothing(t *testing.T) {
	journals, err := workspace.JournalDir()
	if err != nil {
		t.Fatal(err)
	}
	caught := 0
	for attempt := range 3 {
		dir := t.TempDir()
		for i := range crashFiles {
			write(t, filepath.Join(dir, fmt.Sprintf("f%03d.txt", i)), fmt.Sprintf("old %d\n", i))
		}
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), rewindHelperEnv+"="+dir)
		stdin, _ := cmd.StdinPipe()
		stdout, _ := cmd.StdoutPipe()
		cmd.Stderr = os.Stderr
		must(t, cmd.Start())
		out := bufio.NewReader(stdout)
		if line, err := out.ReadString('\n'); line != "ready\n" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("helper: %q, %v", line, err)
		}
		if got := read(t, filepath.Join(dir, "f000.txt")); got != "new 0\n" {
			t.Fatalf("the turn's command did not run: f000.txt = %q", got)
		}
		before, _ := os.ReadDir(journals)
		fmt.Fprintln(stdin, "go")
		killed := false
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) {
			entries, _ := os.ReadDir(journals)
			if len(entries) > len(before) {
				cmd.Process.Signal(syscall.SIGKILL)
				killed = true
				break
			}
			if cmd.ProcessState != nil {
				break
			}
			time.Sleep(50 * time.Microsecond)
		}
		cmd.Wait()
		if killed {
			caught++
		}
		if _, err := workspace.Recover(); err != nil {
			t.Fatalf("recover: %v", err)
		}
		olds, news := 0, 0
		for i := range crashFiles {
			switch got := read(t, filepath.Join(dir, fmt.Sprintf("f%03d.txt", i))); got {
			case fmt.Sprintf("old %d\n", i):
				olds++
			case fmt.Sprintf("new %d\n", i):
				news++
			default:
				t.Errorf("attempt %d: f%03d.txt holds %q", attempt, i, got)
			}
		}
		if olds != 0 && news != 0 {
			t.Errorf("attempt %d (killed %v): %d files rewound and %d not: the rewind was not all or nothing", attempt, killed, olds, news)
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), "f") {
				t.Errorf("attempt %d: %s left in the workspace", attempt, e.Name())
			}
		}
	}
	t.Logf("killed during the rewind's journaled write in %d of 3 attempts", caught)
}
