// Command contextbench measures context assembly: the time from
// agent/startTurn sent to the turn's first model request arriving at the
// model server (the environment context, the AGENTS.md chain, the open
// buffers, the history and the tools put together, and whatever else a
// turn does before it asks), through the real server, in an empty folder,
// Go's own src and the large tree. It must not grow with the repository:
// at most 5 ms more on the large tree than on the empty folder.
//
//	go run ./bench/contextbench -bin bin/agent-ls [-go DIR] [-large DIR] [-n 10]
//
// The servers (each with its workspace as its folder, its state in a
// temporary directory) ask one fake model on loopback. Each run starts a
// fresh server per workspace, waits for it to be idle, starts a
// turn in a new session, as a first prompt does, then a second turn in
// that session, and ends the server; the workspaces take turns going
// first (run 0 warms up and is not counted). The medians are printed
// with their difference to the empty folder; after the last run, how long
// each server went on working in the background, and its CPU time.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/benchrow"
	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

// ceiling is how much longer the large tree may take than the empty
// folder.
const ceiling = 5 * time.Millisecond

// workspace is one folder and the server working in it.
type workspace struct {
	name, dir string
	bgCPU     time.Duration   // the server's CPU time after the turns
	bgTook    time.Duration   // until it was idle
	first     []time.Duration // new session
	next      []time.Duration // second turn of that session
}

func main() {
	bin := flag.String("bin", "bin/agent-ls", "the agent-ls binary")
	goSrc := flag.String("go", "", "Go's src (default: $(go env GOROOT)/src)")
	large := flag.String("large", "", "the large tree (scripts/bench-tree.sh prints it); none: left out")
	runs := flag.Int("n", 10, "timed runs per workspace (the median is reported)")
	flag.Parse()
	if abs, err := filepath.Abs(*bin); err == nil {
		*bin = abs
	}
	if *goSrc == "" {
		out, err := exec.Command("go", "env", "GOROOT").Output()
		if err == nil {
			*goSrc = filepath.Join(strings.TrimSpace(string(out)), "src")
		}
	}
	if err := run(*bin, *goSrc, *large, *runs); err != nil {
		fmt.Fprintln(os.Stderr, "contextbench:", err)
		os.Exit(1)
	}
}

func run(bin, goSrc, large string, runs int) error {
	state, err := os.MkdirTemp("", "contextbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(state)
	empty := filepath.Join(state, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		return err
	}
	arrived := make(chan time.Time, 16)
	m := fakemodel.New()
	defer m.Close()
	wss := []*workspace{{name: "empty folder", dir: empty}, {name: "Go src", dir: goSrc}, {name: "large tree", dir: large}}
	wss = slices.DeleteFunc(wss, func(w *workspace) bool { return w.dir == "" })
	load0 := stats.LoadAvg(1)
	for i := 0; i <= runs; i++ {
		// Each run starts with another folder, so that what the one
		// before leaves (a large store being removed) falls on each alike.
		for k := range wss {
			j := (i + k) % len(wss)
			w := wss[j]
			srv, err := start(bin, w.dir, filepath.Join(state, fmt.Sprint("state", j)), m.URL())
			if err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			// The listing for @-mentions that initialized starts is
			// done before the first prompt, as when a user types one.
			settle(srv.pid, 10*time.Second)
			first, next, err := turns(srv.ed, m, arrived)
			if err == nil && i == runs {
				w.bgCPU, w.bgTook = settle(srv.pid, 2*time.Minute)
			}
			srv.stop()
			if err != nil {
				return fmt.Errorf("%s: %w", w.name, err)
			}
			if i > 0 {
				w.first, w.next = append(w.first, first), append(w.next, next)
			}
		}
	}
	report(wss, runs, load0)
	return nil
}

// report prints the medians, and emits the new-session rows.
func report(wss []*workspace, runs int, load0 string) {
	fmt.Printf("agent/startTurn sent → first model request arrived; median of %d runs; load average %s → %s\n", runs, load0, stats.LoadAvg(1))
	fmt.Printf("%-14s %12s %10s %12s %10s  %s\n", "workspace", "new session", "Δ empty", "next turn", "Δ empty", "folder")
	base, baseNext := stats.Median(wss[0].first), stats.Median(wss[0].next)
	for _, w := range wss {
		f, n := stats.Median(w.first), stats.Median(w.next)
		fmt.Printf("%-14s %12s %10s %12s %10s  %s\n", w.name, ms(f), delta(f-base), ms(n), delta(n-baseNext), w.dir)
	}
	for _, w := range wss {
		fmt.Printf("  %s: after the two turns the server worked %.1f s more in the background (%.0f ms of CPU: the first checkpoint snapshot of a new session)\n",
			w.name, w.bgTook.Seconds(), stats.MS(w.bgCPU))
	}
	for _, w := range wss {
		f := stats.Median(w.first)
		r := benchrow.Row{Name: "context: " + w.name, Value: stats.MS(f), Unit: "ms"}
		if w != wss[0] {
			ok := f-base <= ceiling && stats.Median(w.next)-baseNext <= ceiling
			r.Peer, r.PeerValue = "empty folder", stats.MS(base)
			r.Goal, r.Verdict = fmt.Sprintf("≤ empty + %d ms", ceiling.Milliseconds()), benchrow.Verdict(ok)
			fmt.Printf("  %s %s: %s more than the empty folder on a new session, %s on the next turn (ceiling %v)\n",
				r.Verdict, w.name, delta(f-base), delta(stats.Median(w.next)-baseNext), ceiling)
		}
		benchrow.Emit(r)
	}
}

// server is one agent-ls serve and the editor driving it.
type server struct {
	ed   *editor.Editor
	pid  int
	stop func() // ends it at once: its work in the background too
}

// start starts agent-ls serve in dir against the model at modelURL, its
// state under state, and initializes it with dir as its folder.
func start(bin, dir, state, modelURL string) (*server, error) {
	cmd := exec.Command(bin, "serve", "--log-level", "error")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "XDG_STATE_HOME="+state, "OPENAI_BASE_URL="+modelURL, "OPENAI_API_KEY=bench", "AGENT_LS_MODEL=bench-model")
	cmd.Stderr = os.Stderr
	ed, err := editor.Start(cmd, editor.Config{})
	if err != nil {
		return nil, err
	}
	srv := &server{ed: ed, pid: cmd.Process.Pid, stop: func() {
		_ = cmd.Process.Kill()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_, _ = ed.Exit(ctx) // waits for the process to end
		_ = os.RemoveAll(state)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := ed.Initialize(ctx, editor.Options{Events: true, WorkspaceFolders: []string{dir}}); err != nil {
		srv.stop()
		return nil, err
	}
	return srv, nil
}

// turns runs a turn in a new session and a second one in it, and returns
// for each the time from agent/startTurn sent to the model request.
func turns(ed *editor.Editor, m *fakemodel.Server, arrived chan time.Time) (first, next time.Duration, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var sessionID string
	for i := range 2 {
		m.Add(fakemodel.Step{Respond: func(*fakemodel.Request) fakemodel.Reply {
			arrived <- time.Now()
			return fakemodel.Reply{Items: []fakemodel.Item{fakemodel.Message("ok")}}
		}})
		params := map[string]any{"prompt": "Say ok."}
		if sessionID != "" {
			params["sessionId"] = sessionID
		}
		var started struct {
			SessionID string `json:"sessionId"`
			TurnID    string `json:"turnId"`
		}
		sent := time.Now()
		if err := ed.Request(ctx, "agent/startTurn", params, &started); err != nil {
			return 0, 0, err
		}
		var took time.Duration
		select {
		case at := <-arrived:
			took = at.Sub(sent)
		case <-ctx.Done():
			return 0, 0, fmt.Errorf("no model request: %w", ctx.Err())
		}
		if _, err := ed.WaitTurnCompleted(ctx, started.TurnID); err != nil {
			return 0, 0, err
		}
		sessionID = started.SessionID
		if i == 0 {
			first = took
		} else {
			next = took
		}
	}
	return first, next, nil
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", stats.MS(d)) }

func delta(d time.Duration) string {
	return fmt.Sprintf("%+.2f ms", stats.MS(d))
}

// settle waits until the server pid is idle (under 2 ms of CPU time in
// 200 ms) or limit passed, and returns the CPU time it used meanwhile and
// how long it took.
func settle(pid int, limit time.Duration) (cpu, took time.Duration) {
	start, cpu0 := time.Now(), stats.CPUTime(pid)
	last := cpu0
	for time.Since(start) < limit {
		time.Sleep(200 * time.Millisecond)
		now := stats.CPUTime(pid)
		if now-last < 2*time.Millisecond {
			return now - cpu0, time.Since(start)
		}
		last = now
	}
	return last - cpu0, time.Since(start)
}
