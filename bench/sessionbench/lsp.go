package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"os/exec"
	"strconv"
	"time"

	"github.com/agent-ls/agent-ls/bench/stats"
)

// serverEnv is the environment of the servers started: the state
// directory, and a model that is never asked (resuming needs no
// request).
func serverEnv(state string) []string {
	return append(os.Environ(), "XDG_STATE_HOME="+state, "OPENAI_BASE_URL=http://127.0.0.1:9/v1", "OPENAI_API_KEY=bench", "AGENT_LS_MODEL=bench-model")
}

// timing is one resume: the client's time from request to the answer's
// last byte read and to the answer decoded (encoding/json, the items
// kept as raw JSON), the server's CPU time meanwhile, and how many
// history items (LSP) or updates (ACP) the client got.
type timing struct {
	took, decoded, cpu time.Duration
	items              int
}

// lspConn speaks LSP's framed JSON-RPC to a server directly, so that
// the time to the answer is the server's and the pipe's, and decoding
// it is timed apart.
type lspConn struct {
	in  io.Writer
	out *bufio.Reader
	id  int
}

// call sends a request and reads frames until its answer, which it
// returns undecoded.
func (c *lspConn) call(method string, params any) ([]byte, error) {
	c.id++
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b); err != nil {
		return nil, err
	}
	want := []byte(fmt.Sprintf(`"id":%d`, c.id))
	for {
		body, err := c.frame()
		if err != nil {
			return nil, err
		}
		if head := body[:min(len(body), 64)]; bytes.Contains(head, want) && !bytes.Contains(body[:min(len(body), 256)], []byte(`"method":`)) {
			return body, nil
		}
	}
}

// notify sends a notification.
func (c *lspConn) notify(method string, params any) error {
	b, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.in, "Content-Length: %d\r\n\r\n%s", len(b), b)
	return err
}

// frame reads one message's body.
func (c *lspConn) frame() ([]byte, error) {
	h, err := textproto.NewReader(c.out).ReadMIMEHeader()
	if err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(h.Get("Content-Length"))
	if err != nil {
		return nil, fmt.Errorf("a frame without its length: %v", h)
	}
	body := make([]byte, n)
	_, err = io.ReadFull(c.out, body)
	return body, err
}

// resumeLSP starts a server on the state directory and times one
// agent/resumeSession.
func resumeLSP(bin, state, ws, id string) (timing, error) {
	cmd := exec.Command(bin, "serve", "--log-level", "error")
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
	c := &lspConn{in: stdin, out: bufio.NewReaderSize(stdout, 1<<20)}
	if _, err := c.call("initialize", map[string]any{"processId": nil, "rootUri": "file://" + ws,
		"workspaceFolders": []any{map[string]any{"uri": "file://" + ws, "name": "workspace"}},
		"capabilities":     map[string]any{"experimental": map[string]any{"agent": map[string]any{"events": true}}}}); err != nil {
		return timing{}, err
	}
	if err := c.notify("initialized", map[string]any{}); err != nil {
		return timing{}, err
	}
	cpu0, start := stats.CPUTime(cmd.Process.Pid), time.Now()
	body, err := c.call("agent/resumeSession", map[string]any{"sessionId": id})
	if err != nil {
		return timing{}, err
	}
	took := time.Since(start)
	var res struct {
		Result struct {
			Items []json.RawMessage `json:"items"`
		} `json:"result"`
		Error json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(body, &res); err != nil {
		return timing{}, err
	}
	if res.Error != nil {
		return timing{}, fmt.Errorf("agent/resumeSession: %s", res.Error)
	}
	return timing{took: took, decoded: time.Since(start), cpu: stats.CPUTime(cmd.Process.Pid) - cpu0, items: len(res.Result.Items)}, nil
}
