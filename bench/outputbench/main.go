// Command outputbench measures the server's peak memory (VmHWM) while a
// command in a turn writes a large output, toward an editor that reads
// its messages slowly and toward one that reads nothing until the command
// has ended.
//
//	go run ./bench/outputbench -bin bin/agent-ls [-bin old/agent-ls] [-bytes 1000000000]
//
// Each -bin is measured in turn in the same run, so that two builds can
// be compared on one machine. Numbers are printed, never asserted.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
)

type bins []string

func (b *bins) String() string     { return strings.Join(*b, ",") }
func (b *bins) Set(v string) error { *b = append(*b, v); return nil }

func main() {
	var binaries bins
	flag.Var(&binaries, "bin", "an agent-ls binary (repeatable)")
	size := flag.Int64("bytes", 1_000_000_000, "output the command writes")
	flag.Parse()
	if len(binaries) == 0 {
		binaries = bins{"bin/agent-ls"}
	}
	fmt.Printf("peak RSS (VmHWM) of agent-ls while a command writes %d MB to an editor that opted into events\n", *size/1_000_000)
	for _, bin := range binaries {
		abs, _ := filepath.Abs(bin)
		for _, mode := range []string{"slow", "none"} {
			r, err := run(abs, *size, mode)
			if err != nil {
				fmt.Fprintf(os.Stderr, "outputbench: %s (%s): %v\n", bin, mode, err)
				os.Exit(1)
			}
			fmt.Printf("  %-40s reader %-4s  peak RSS %4d MB  events %6d  live bytes %5.1f MB  turn %5.1f s\n",
				bin, mode, r.peakKB/1024, r.events, float64(r.liveBytes)/1e6, r.elapsed.Seconds())
		}
	}
	fmt.Println("  (reader slow: 16 KB per millisecond; none: reads nothing from the start of the command until it ended)")
}

type result struct {
	peakKB    int64
	events    int
	liveBytes int64
	elapsed   time.Duration
}

// gate is the editor's end of the server's stdout: it reads slowly, or
// not at all while closed.
type gate struct {
	r    io.Reader
	slow bool
	mu   sync.Mutex
	cond *sync.Cond
	shut bool
}

func (g *gate) Read(p []byte) (int, error) {
	g.mu.Lock()
	for g.shut {
		g.cond.Wait()
	}
	g.mu.Unlock()
	if g.slow {
		time.Sleep(time.Millisecond)
		p = p[:min(len(p), 16<<10)]
	}
	return g.r.Read(p)
}

func (g *gate) set(shut bool) {
	g.mu.Lock()
	g.shut = shut
	g.mu.Unlock()
	g.cond.Broadcast()
}

type pipes struct {
	io.Reader
	io.WriteCloser
}

func run(bin string, size int64, mode string) (result, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	script := fmt.Sprintf("head -c %d /dev/zero | tr '\\0' 'x' | fold -w 99", size*99/100)
	args, _ := json.Marshal(map[string]any{"command": []string{"bash", "-c", script}, "timeout_ms": 1_800_000})
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "shell", string(args))),
		fakemodel.Say("done"),
	)
	defer m.Close()
	dir, err := os.MkdirTemp("", "outputbench-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	cmd := exec.Command(bin, "--stdio", "--approval-policy", "never")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "OPENAI_BASE_URL="+m.URL(), "OPENAI_API_KEY=test", "AGENT_LS_MODEL=gpt-5-codex",
		"XDG_STATE_HOME="+filepath.Join(dir, ".state"))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return result{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return result{}, err
	}
	if err := cmd.Start(); err != nil {
		return result{}, err
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	g := &gate{r: stdout, slow: mode == "slow"}
	g.cond = sync.NewCond(&g.mu)
	ed := editor.Connect(nopCloser{pipes{g, stdin}}, editor.Config{})
	defer ed.Disconnect()
	if _, err := ed.Initialize(ctx, editor.Options{Events: true, Progress: true, WorkspaceFolders: []string{dir}}); err != nil {
		return result{}, err
	}
	start := time.Now()
	var turn struct {
		TurnID string `json:"turnId"`
	}
	if err := ed.Request(ctx, "agent/startTurn", map[string]any{"prompt": "write a lot"}, &turn); err != nil {
		return result{}, err
	}
	if mode == "none" {
		g.set(true)
		// The command has ended when the model gets its result.
		for len(m.Requests()) < 2 {
			if ctx.Err() != nil {
				return result{}, ctx.Err()
			}
			time.Sleep(50 * time.Millisecond)
		}
		g.set(false)
	}
	if _, err := ed.WaitTurnCompleted(ctx, turn.TurnID); err != nil {
		return result{}, err
	}
	r := result{elapsed: time.Since(start)}
	for _, ev := range ed.Events() {
		r.events++
		r.liveBytes += int64(len(ev.Chunk))
	}
	peak, err := stats.Memory(cmd.Process.Pid, "VmHWM")
	r.peakKB = peak >> 10
	return r, err
}

type nopCloser struct{ pipes }

func (n nopCloser) Close() error { return n.WriteCloser.Close() }
