// Command mcpbench measures how long `agent-ls mcp list` takes from spawn
// to its answer with one stdio MCP server configured: the process start,
// the MCP handshake and the paged tools/list, through the client built
// into each binary given.
//
//	go run ./bench/mcpbench [-runs 30] -server PATH BIN [BIN2 ...]
//
// Binaries are run interleaved (one spawn of each in turn), so that a
// machine that gets slower or faster during the run weighs on all of them
// alike. It prints the median, p90 and minimum of each and the ratio of
// each median to the first binary's. Numbers are printed, never asserted.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
)

func main() {
	runs := flag.Int("runs", 30, "spawns per binary")
	server := flag.String("server", "", "the MCP server program to configure (bench/mcpbench/server)")
	tools := flag.Int("tools", 20, "how many tools the server offers")
	flag.Parse()
	names := flag.Args()
	bins := slices.Clone(names)
	for i, b := range bins {
		if abs, err := filepath.Abs(b); err == nil {
			bins[i] = abs
		}
	}
	if *server == "" || len(bins) == 0 {
		fmt.Fprintln(os.Stderr, "usage: mcpbench [-runs N] -server PATH BIN [BIN2 ...]")
		os.Exit(2)
	}
	home, err := os.MkdirTemp("", "mcpbench-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(home)
	if err := writeConfig(home, *server, *tools); err != nil {
		fail(err)
	}
	lat := make([][]time.Duration, len(bins))
	for range *runs {
		for i, bin := range bins {
			d, err := listOnce(bin, home)
			if err != nil {
				fail(fmt.Errorf("%s: %w", bin, err))
			}
			lat[i] = append(lat[i], d)
		}
	}
	for i, bin := range names {
		med := percentile(lat[i], 50)
		ratio := ""
		if i > 0 {
			ratio = fmt.Sprintf("  %.2fx the first", float64(med)/float64(percentile(lat[0], 50)))
		}
		fmt.Printf("%-44s median %6.1f ms  p90 %6.1f ms  min %6.1f ms%s\n", bin,
			stats.MS(med), stats.MS(percentile(lat[i], 90)), stats.MS(slices.Min(lat[i])), ratio)
	}
}

// writeConfig writes a user config with one MCP server, under home.
func writeConfig(home, server string, tools int) error {
	abs, err := filepath.Abs(server)
	if err != nil {
		return err
	}
	dir := filepath.Join(home, "config", "agent-ls")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	cfg := fmt.Sprintf("[mcp_servers.bench]\ncommand = %s\nargs = [\"-tools\", %s]\n",
		strconv.Quote(abs), strconv.Quote(strconv.Itoa(tools)))
	return os.WriteFile(filepath.Join(dir, "config.toml"), []byte(cfg), 0o644)
}

// listOnce runs `bin mcp list` once and returns its wall time.
func listOnce(bin, home string) (time.Duration, error) {
	cmd := exec.Command(bin, "mcp", "list")
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, "config"),
		"XDG_STATE_HOME="+filepath.Join(home, "state"), "XDG_CACHE_HOME="+filepath.Join(home, "cache"))
	cmd.Dir = home
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if err != nil {
		return 0, fmt.Errorf("%w: %s", err, out.Bytes())
	}
	if !bytes.Contains(out.Bytes(), []byte("echo_0")) {
		return 0, fmt.Errorf("the server's tools are not listed: %s", out.Bytes())
	}
	return d, nil
}

func percentile(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpbench:", err)
	os.Exit(1)
}
