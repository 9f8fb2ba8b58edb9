package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/agent-ls/agent-ls/internal/editor"
)

// serverEnv is the environment of the servers started: the state
// directory, and a model that is never asked (resuming needs no
// request).
func serverEnv(state string) []string {
	return append(os.Environ(), "XDG_STATE_HOME="+state, "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_API_KEY=bench", "AGENT_LS_MODEL=bench-model")
}

// cpuTime is the CPU time the process pid has used so far: the sum over
// its threads of the scheduler's count, in nanoseconds (0 where /proc
// does not say).
func cpuTime(pid int) time.Duration {
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

// timing is one resume: the client's time from request to decoded
// answer, the server's CPU time meanwhile, and how many history items
// (LSP) or updates (ACP) the client got.
type timing struct {
	took, cpu time.Duration
	items     int
}

// resumeLSP starts a server on the state directory and times one
// agent/resumeSession.
func resumeLSP(bin, state, ws, id string) (timing, error) {
	cmd := exec.Command(bin, "serve", "--log-level", "error")
	cmd.Dir = ws
	cmd.Env = serverEnv(state)
	cmd.Stderr = os.Stderr
	ed, err := editor.Start(cmd, editor.Config{})
	if err != nil {
		return timing{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	defer func() {
		ed.Shutdown(ctx)
		ed.Exit(ctx)
	}()
	if _, err := ed.Initialize(ctx, editor.Options{Events: true, WorkspaceFolders: []string{ws}}); err != nil {
		return timing{}, err
	}
	var res struct {
		Items []json.RawMessage `json:"items"`
	}
	cpu0, start := cpuTime(cmd.Process.Pid), time.Now()
	if err := ed.Request(ctx, "agent/resumeSession", map[string]any{"sessionId": id}, &res); err != nil {
		return timing{}, err
	}
	return timing{took: time.Since(start), cpu: cpuTime(cmd.Process.Pid) - cpu0, items: len(res.Items)}, nil
}
