package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// The ways serve and exec can stop while a sandboxed command (with a
// daemon of its own) runs. Each must leave no process and, except kill -9,
// no placeholder behind; after kill -9 the next start removes them.
const stopKill = "kill -9, then the next start"

func lingerMarker() string { return proctest.Marker() }

func checkNoLingerers(t *testing.T, m string) { t.Helper(); proctest.Gone(t, m) }

// stopProcess stops cmd the named way.
func stopProcess(cmd *exec.Cmd, stop string) {
	sigs := map[string]syscall.Signal{"SIGINT": syscall.SIGINT, "SIGTERM": syscall.SIGTERM, "SIGHUP": syscall.SIGHUP, stopKill: syscall.SIGKILL}
	cmd.Process.Signal(sigs[stop])
}

func placeholdersIn(dir string) []string {
	var found []string
	for _, n := range []string{".git", ".agents", ".agent-ls"} {
		if _, err := os.Lstat(filepath.Join(dir, n)); err == nil {
			found = append(found, n)
		}
	}
	return found
}

// lingeringShellCall runs a command that starts a daemon holding its
// stdout, says "started", and then waits for ever.
func lingeringShellCall(m string) fakemodel.Item {
	script := "setsid bash -c 'exec -a " + m + " sleep 1000' & echo started; exec -a " + m + " sleep 1000"
	args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-c", script}, "timeout_ms": 600000})
	return fakemodel.FunctionCall("c1", "shell", string(args))
}

func TestExecStopsLeaveNothingBehind(t *testing.T) {
	for _, stop := range []string{"SIGINT", "SIGTERM", "SIGHUP", stopKill} {
		t.Run(stop, func(t *testing.T) {
			mk := lingerMarker()
			m := fakemodel.New(fakemodel.Answer(lingeringShellCall(mk)), fakemodel.Say("done"), fakemodel.Say("again"))
			defer m.Close()
			cmd := execCmd(t, m, "--full-auto", "run it")
			stderr, _ := cmd.StderrPipe()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			r := bufio.NewReader(stderr)
			for {
				line, err := r.ReadString('\n')
				if err != nil {
					t.Fatalf("exec ended before the command started: %v", err)
				}
				if line == "started\n" {
					break
				}
			}
			if got := placeholdersIn(cmd.Dir); len(got) != 3 {
				t.Fatalf("placeholders while the command runs: %v", got)
			}
			stopProcess(cmd, stop)
			go io.Copy(io.Discard, r)
			cmd.Wait()
			checkNoLingerers(t, mk)
			if stop == stopKill {
				// Nothing could clean up; the next exec in the folder does.
				next := exec.Command(binary, "exec", "hello")
				next.Dir, next.Env = cmd.Dir, cmd.Env
				if out, err := next.CombinedOutput(); err != nil {
					t.Fatalf("next exec: %v\n%s", err, out)
				}
			}
			if got := placeholdersIn(cmd.Dir); len(got) != 0 {
				t.Errorf("left in the workspace: %v", got)
			}
		})
	}
}

// startServer runs the server in dir, keeping its process at hand.
func startServer(t *testing.T, dir string, steps ...fakemodel.Step) (*session, *exec.Cmd, <-chan struct{}) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	m := fakemodel.New(steps...)
	t.Cleanup(m.Close)
	cmd := exec.Command(binary, "--stdio")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	ed := editor.Connect(stdioPipes{stdout, stdin}, editor.Config{})
	if _, err := ed.Initialize(ctx, editor.Options{Events: true, WorkspaceFolders: []string{dir}}); err != nil {
		t.Fatal(err)
	}
	return &session{t: t, ed: ed, model: m, dir: dir, ctx: ctx}, cmd, exited
}

type stdioPipes struct {
	io.ReadCloser
	io.WriteCloser
}

func (p stdioPipes) Close() error {
	p.WriteCloser.Close()
	return p.ReadCloser.Close()
}

func TestServeStopsLeaveNothingBehind(t *testing.T) {
	for _, stop := range []string{"SIGINT", "SIGTERM", "SIGHUP", "end of stdin", stopKill} {
		t.Run(stop, func(t *testing.T) {
			mk := lingerMarker()
			dir := t.TempDir()
			s, cmd, exited := startServer(t, dir, fakemodel.Answer(lingeringShellCall(mk)), fakemodel.Say("done"))
			s.startTurn(map[string]any{"prompt": "run it"})
			if _, err := s.ed.WaitEvent(s.ctx, func(ev editor.Event) bool { return ev.Type == "execOutput" && strings.Contains(ev.Chunk, "started") }); err != nil {
				t.Fatal(err)
			}
			if got := placeholdersIn(dir); len(got) != 3 {
				t.Fatalf("placeholders while the command runs: %v", got)
			}
			if stop == "end of stdin" {
				s.ed.Disconnect()
			} else {
				stopProcess(cmd, stop)
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second):
				t.Fatal("the server did not exit")
			}
			checkNoLingerers(t, mk)
			if stop == stopKill {
				// The next server to initialise in the folder cleans up.
				next, _, _ := startServer(t, dir)
				next.ed.Disconnect()
			}
			if got := placeholdersIn(dir); len(got) != 0 {
				t.Errorf("left in the workspace: %v", got)
			}
		})
	}
}
