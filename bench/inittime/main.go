// Command inittime measures how long language servers take from spawn to
// the initialize result, and the server's resident memory right after.
//
//	go run ./bench/inittime [-runs 30] [-root DIR] CMD [ARGS...] [-- CMD2 ...]
//
// Each server command is separated by "--". It prints the median, p90 and
// minimum latency and the median RSS of each, the ratio of each median to
// the first server's, and a PASS or FAIL line for the first server's
// median against -ceiling (agent-ls's: 20 ms on the machine it runs on).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
	"github.com/agent-ls/agent-ls/internal/lspframe"
)

func main() {
	runs := flag.Int("runs", 30, "spawns per server")
	root := flag.String("root", ".", "workspace root sent in initialize")
	timeout := flag.Duration("timeout", 30*time.Second, "give up on one spawn after this long")
	ceiling := flag.Duration("ceiling", 20*time.Millisecond, "the first server's ceiling for the median spawn → initialize result")
	flag.Parse()
	servers := splitCommands(flag.Args())
	if len(servers) == 0 {
		fmt.Fprintln(os.Stderr, "usage: inittime [-runs N] CMD [ARGS...] [-- CMD2 ...]")
		os.Exit(2)
	}
	absRoot, err := filepath.Abs(*root)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	var base time.Duration
	for i, argv := range servers {
		lat, rss, err := measure(argv, absRoot, *runs, *timeout)
		name := strings.Join(argv, " ")
		if err != nil {
			fmt.Printf("%-40s error: %v\n", name, err)
			continue
		}
		med := stats.Percentile(lat, 50)
		ratio := ""
		if i == 0 {
			base = med
			defer ceilingLine(name, med, *ceiling)
		} else if base > 0 {
			ratio = fmt.Sprintf("  %.1fx agent-ls", float64(med)/float64(base))
		}
		fmt.Printf("%-40s spawn→initialize median %6.1f ms  p90 %6.1f ms  min %6.1f ms  RSS %5.1f MB%s\n",
			name, ms(med), ms(stats.Percentile(lat, 90)), ms(lat[0]), float64(stats.Median(rss))/1024, ratio)
	}
}

// ceilingLine prints the first server's median against its ceiling.
func ceilingLine(name string, med, ceiling time.Duration) {
	verdict := "FAIL"
	if med <= ceiling {
		verdict = "PASS"
	}
	fmt.Printf("%s %s spawn → initialize median %.1f ms (ceiling %v)\n", verdict, name, ms(med), ceiling)
}

func splitCommands(args []string) [][]string {
	var out [][]string
	var cur []string
	for _, a := range args {
		if a == "--" {
			if len(cur) > 0 {
				out = append(out, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, a)
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// measure spawns argv runs times; it returns the sorted latencies and the
// RSS (KiB) of each spawn right after initialize.
func measure(argv []string, root string, runs int, timeout time.Duration) ([]time.Duration, []int, error) {
	var lat []time.Duration
	var rss []int
	for range runs {
		d, kb, err := once(argv, root, timeout)
		if err != nil {
			return nil, nil, err
		}
		lat = append(lat, d)
		rss = append(rss, kb)
	}
	slices.Sort(lat)
	return lat, rss, nil
}

func once(argv []string, root string, timeout time.Duration) (time.Duration, int, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = root
	cmd.Stderr = io.Discard
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, 0, err
	}
	params := map[string]any{
		"processId":        os.Getpid(),
		"rootUri":          "file://" + root,
		"capabilities":     map[string]any{"window": map[string]any{"workDoneProgress": true}},
		"workspaceFolders": []map[string]string{{"uri": "file://" + root, "name": filepath.Base(root)}},
	}
	msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})

	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, 0, err
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
	}()
	if err := lspframe.Write(stdin, msg); err != nil {
		return 0, 0, err
	}
	type result struct {
		d   time.Duration
		err error
	}
	done := make(chan result, 1)
	go func() {
		r := bufio.NewReader(stdout)
		for {
			body, err := lspframe.Read(r)
			if err != nil {
				done <- result{err: err}
				return
			}
			var m struct {
				ID json.RawMessage `json:"id"`
			}
			if json.Unmarshal(body, &m) == nil && string(m.ID) == "1" {
				done <- result{d: time.Since(start)}
				return
			}
		}
	}()
	select {
	case res := <-done:
		if res.err != nil {
			return 0, 0, res.err
		}
		rss, _ := stats.Memory(cmd.Process.Pid, "VmRSS")
		return res.d, int(rss >> 10), nil
	case <-time.After(timeout):
		return 0, 0, fmt.Errorf("no initialize result within %v", timeout)
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
