package main

import (
	"bytes"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// TestExecKillsCommandSessions: agent-ls exec shows a command session's
// output on stderr, live, and when exec ends, by the turn's end, its
// failure, SIGINT, SIGTERM or SIGKILL, no process of any command session
// survives it (each session runs a daemon of its own beside its
// command).
func TestExecKillsCommandSessions(t *testing.T) {
	for _, how := range []string{"end", "error", "SIGINT", "SIGTERM", "SIGKILL"} {
		t.Run(how, func(t *testing.T) {
			marker := proctest.Marker()
			cmdline := "echo started-$((6*7)); (exec -a " + marker + " sleep 1000 &); exec -a " + marker + " sleep 1000"
			start := fakemodel.Answer(fakemodel.FunctionCall("c1", "exec_command", `{"cmd":`+quoteJSON(cmdline)+`,"login":false,"yield_time_ms":250}`))
			steps := []fakemodel.Step{start}
			var gate *fakemodel.Gate
			switch how {
			case "end":
				steps = append(steps, fakemodel.Say("it runs"))
			case "SIGINT", "SIGTERM", "SIGKILL":
				gate = fakemodel.NewGate(2)
				t.Cleanup(gate.Release)
				step := fakemodel.Say("a long answer that never ends")
				step.Gate = gate
				steps = append(steps, step)
			} // error: no second step, the next request fails
			m := fakemodel.New(steps...)
			t.Cleanup(m.Close)
			var stdout bytes.Buffer
			stderr := &watchedBuffer{}
			cmd := execCmd(t, m, "start a server")
			cmd.Stdout, cmd.Stderr = &stdout, stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			want := 0
			switch how {
			case "error":
				want = 1
			case "SIGINT", "SIGTERM", "SIGKILL":
				<-gate.Reached()
				if len(proctest.Find(marker)) == 0 {
					t.Fatal("the command session is not running while the turn runs")
				}
				// On a loaded machine the command may not have written
				// yet when its call yields: the signal comes after.
				stderr.waitFor(t, "started-42\n")
				sig, code := syscall.SIGINT, 130
				switch how {
				case "SIGTERM":
					sig = syscall.SIGTERM
				case "SIGKILL":
					// Nothing of agent-ls runs after it: the sandbox's
					// supervisors end the sessions when their parent dies.
					sig, code = syscall.SIGKILL, -1
				}
				cmd.Process.Signal(sig)
				want = code
			}
			if code := exitCode(cmd.Wait()); code != want {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, want, stderr.String())
			}
			proctest.Gone(t, marker)
			if !strings.Contains(stderr.String(), "started-42\n") {
				t.Errorf("the command session's output is not on stderr:\n%s", stderr.String())
			}
		})
	}
}

// watchedBuffer is a command's output as it comes, safe to read while
// the command writes it.
type watchedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *watchedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *watchedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the output holds want.
func (b *watchedBuffer) waitFor(t *testing.T, want string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(b.String(), want); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q in the output:\n%s", want, b.String())
		}
	}
}
