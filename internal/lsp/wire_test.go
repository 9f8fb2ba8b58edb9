package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/lspframe"
)

// rawClient speaks to the server in raw bytes, to send what no well-behaved
// client would.
type rawClient struct {
	t     *testing.T
	conn  net.Conn
	r     *bufio.Reader
	agent chan *fakeAgent
	done  chan struct{}
	res   *served
}

func newRawClient(t *testing.T, opts ...func(*Options)) *rawClient {
	serverEnd, clientEnd := net.Pipe()
	c := &rawClient{t: t, conn: clientEnd, r: bufio.NewReader(clientEnd), agent: make(chan *fakeAgent, 1)}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	o := Options{
		Logger: slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
		NewAgent: func(cfg AgentConfig) (Agent, error) {
			a := newFakeAgent(cfg)
			c.agent <- a
			return a, nil
		},
	}
	for _, opt := range opts {
		opt(&o)
	}
	c.done, c.res = serveInBackground(t, ctx, serverEnd, o)
	t.Cleanup(func() { clientEnd.Close() })
	return c
}

// send writes body as one framed message.
func (c *rawClient) send(body string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := lspframe.Write(c.conn, []byte(body)); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

func (c *rawClient) write(raw string) {
	c.t.Helper()
	c.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(c.conn, raw); err != nil {
		c.t.Fatalf("write: %v", err)
	}
}

// read returns the next message from the server.
func (c *rawClient) read() any {
	c.t.Helper()
	c.conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	body, err := lspframe.Read(c.r)
	if err != nil {
		c.t.Fatalf("reading a message: %v", err)
	}
	var msg any
	if err := json.Unmarshal(body, &msg); err != nil {
		c.t.Fatalf("server sent bad JSON %q: %v", body, err)
	}
	return msg
}

// response returns the next response, skipping anything else.
func (c *rawClient) response() map[string]any {
	c.t.Helper()
	for {
		msg := c.read()
		if m, ok := msg.(map[string]any); ok {
			if _, isReq := m["method"]; !isReq {
				return m
			}
			continue
		}
		c.t.Fatalf("expected a response, got %v", msg)
	}
}

// expectError reads the next response and checks its id and error code.
func (c *rawClient) expectError(id any, code int) string {
	c.t.Helper()
	m := c.response()
	if fmt.Sprint(m["id"]) != fmt.Sprint(id) {
		c.t.Fatalf("response id %v, want %v: %v", m["id"], id, m)
	}
	e, ok := m["error"].(map[string]any)
	if !ok {
		c.t.Fatalf("response %v has no error, want code %d", m, code)
	}
	if int(e["code"].(float64)) != code {
		c.t.Fatalf("error %v, want code %d", e, code)
	}
	msg, _ := e["message"].(string)
	return msg
}

func (c *rawClient) expectResult(id any) any {
	c.t.Helper()
	m := c.response()
	if fmt.Sprint(m["id"]) != fmt.Sprint(id) {
		c.t.Fatalf("response id %v, want %v: %v", m["id"], id, m)
	}
	if e, ok := m["error"]; ok {
		c.t.Fatalf("response %v: error %v", id, e)
	}
	return m["result"]
}

// ping proves the server still answers.
func (c *rawClient) ping(id int) {
	c.t.Helper()
	c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"unknown/method"}`, id))
	c.expectError(id, -32601)
}

func TestMalformedInputKeepsTheServerUp(t *testing.T) {
	c := newRawClient(t)

	// Before initialize, a request is refused, not dropped.
	c.send(`{"jsonrpc":"2.0","id":1,"method":"agent/newSession","params":{}}`)
	c.expectError(1, -32002)

	c.send(`{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"capabilities":{}}}`)
	c.expectResult(2)
	c.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	a := <-c.agent

	t.Run("invalid JSON", func(t *testing.T) {
		c.send(`{"jsonrpc":"2.0","id":3,"method":`)
		c.expectError(nil, -32700)
		c.send(`not json at all`)
		c.expectError(nil, -32700)
		c.ping(4)
	})
	t.Run("bad headers", func(t *testing.T) {
		c.write("Content-Length: abc\r\n\r\n{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"unknown/x\"}")
		c.expectError(nil, -32700)
		c.ping(6)
		c.write("this is no header\r\n\r\n{}")
		c.expectError(nil, -32700)
		c.ping(7)
		c.write("Content-Type: application/json\r\n\r\n{}")
		c.expectError(nil, -32700)
		c.ping(8)
		c.write("Content-Length: 99999999999999\r\n\r\n{}")
		c.expectError(nil, -32700)
		c.ping(9)
	})
	t.Run("not a request", func(t *testing.T) {
		c.send(`5`)
		c.expectError(nil, -32600)
		c.send(`{"jsonrpc":"1.0","id":10,"method":"unknown/x"}`)
		c.expectError(10, -32600)
		c.send(`{"jsonrpc":"2.0","id":{},"method":"unknown/x"}`)
		c.expectError(nil, -32600)
		c.send(`[]`)
		c.expectError(nil, -32600)
		// A broken response to nothing we asked is dropped, not answered.
		c.send(`{"jsonrpc":"2.0","id":99}`)
		c.ping(11)
	})
	t.Run("batch", func(t *testing.T) {
		c.send(`[{"jsonrpc":"2.0","id":12,"method":"unknown/x"},5]`)
		msg := c.read()
		arr, ok := msg.([]any)
		if !ok || len(arr) != 2 {
			t.Fatalf("batch answer %v", msg)
		}
	})
	t.Run("bad params", func(t *testing.T) {
		c.send(`{"jsonrpc":"2.0","id":13,"method":"textDocument/codeAction","params":"x"}`)
		c.expectError(13, -32602)
		c.send(`{"jsonrpc":"2.0","id":14,"method":"agent/startTurn","params":{"prompt":5}}`)
		if msg := c.expectError(14, -32602); !strings.Contains(msg, "prompt") {
			t.Errorf("message %q does not name the field", msg)
		}
		c.send(`{"jsonrpc":"2.0","id":15,"method":"agent/startTurn","params":[1,2]}`)
		c.expectError(15, -32602)
		c.send(`{"jsonrpc":"2.0","id":16,"method":"workspace/executeCommand","params":{"command":7}}`)
		c.expectError(16, -32602)
	})
	t.Run("bad notifications are ignored", func(t *testing.T) {
		c.send(`{"jsonrpc":"2.0","method":"unknown/notification","params":{}}`)
		c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":{}}}`)
		c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":5}`)
		c.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":5}}`)
		c.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":null}`)
		c.send(`{"jsonrpc":"2.0","method":"initialized","params":7}`)
		c.send(`{"jsonrpc":"2.0","method":"window/workDoneProgress/cancel","params":{"token":[]}}`)
		c.send(`{"jsonrpc":"2.0","method":"$/setTrace","params":{"value":{}}}`)
		c.ping(17)
	})
	t.Run("cancelRequest", func(t *testing.T) {
		c.send(`{"jsonrpc":"2.0","id":18,"method":"agent/startTurn","params":{"prompt":"go"}}`)
		started := c.expectResult(18).(map[string]any)
		a.mu.Lock()
		a.blockInterrupt = make(chan struct{})
		a.mu.Unlock()
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":19,"method":"agent/interrupt","params":{"sessionId":%q}}`, started["sessionId"]))
		c.send(`{"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":19}}`)
		c.expectError(19, -32800)
		close(a.blockInterrupt)
		c.ping(20)
	})

	c.send(`{"jsonrpc":"2.0","method":"exit"}`)
	<-c.done
	if c.res.code != 1 {
		t.Errorf("exit code %d, want 1", c.res.code)
	}
}
