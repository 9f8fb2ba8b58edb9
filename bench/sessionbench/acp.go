package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
)

// acpConn speaks ACP's JSON-RPC lines to an agent directly: a client
// library queues notifications for its handler and may drop the
// connection when a replay of 10,000 turns outruns it.
type acpConn struct {
	in  io.Writer
	out *bufio.Reader
	id  int
}

// call sends a request and reads lines until its answer, counting the
// session/update notifications before it.
func (c *acpConn) call(method string, params any) (updates int, err error) {
	c.id++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		return 0, err
	}
	if _, err := c.in.Write(append(b, '\n')); err != nil {
		return 0, err
	}
	want := []byte(fmt.Sprintf(`"id":%d`, c.id))
	for {
		l, err := c.out.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			rest, err := c.out.ReadBytes('\n')
			if err != nil {
				return updates, err
			}
			l = append(bytes.Clone(l), rest...)
		} else if err != nil {
			return updates, err
		}
		switch {
		case bytes.Contains(l, []byte(`"method":"session/update"`)):
			updates++
		case bytes.Contains(l, want) && !bytes.Contains(l, []byte(`"method":`)):
			var res struct {
				Error json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(l, &res); err != nil {
				return updates, err
			}
			if res.Error != nil {
				return updates, fmt.Errorf("%s: %s", method, res.Error)
			}
			return updates, nil
		}
	}
}

// loadACP starts agent-ls acp on the state directory and times one
// session/load: the conversation replayed as updates, then the answer.
func loadACP(bin, state, ws, id string) (timing, error) {
	cmd := exec.Command(bin, "acp", "--log-level", "error")
	cmd.Dir = ws
	cmd.Env = serverEnv(state)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return timing{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return timing{}, err
	}
	if err := cmd.Start(); err != nil {
		return timing{}, err
	}
	defer stop(cmd, stdin)
	c := &acpConn{in: stdin, out: bufio.NewReaderSize(stdout, 1<<20)}
	if _, err := c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "sessionbench", "version": "1"}}); err != nil {
		return timing{}, err
	}
	cpu0, start := stats.CPUTime(cmd.Process.Pid), time.Now()
	n, err := c.call("session/load", map[string]any{"sessionId": id, "cwd": ws, "mcpServers": []any{}})
	if err != nil {
		return timing{}, err
	}
	// The updates are counted, not decoded, as they come.
	took := time.Since(start)
	return timing{took: took, decoded: took, cpu: stats.CPUTime(cmd.Process.Pid) - cpu0, items: n}, nil
}

// stop ends the agent by closing its input, as a client that goes does.
func stop(cmd *exec.Cmd, stdin io.Closer) {
	stdin.Close()
	done := make(chan struct{})
	go func() { cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		cmd.Process.Kill()
		<-done
	}
}
