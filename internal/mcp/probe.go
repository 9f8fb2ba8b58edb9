package mcp

import (
	"context"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	mcpsdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// methodDiscover is the probe of the stateless protocol (2026-07-28)
// the SDK sends before it falls back to the initialize handshake.
const methodDiscover = "server/discover"

// probeTransport bounds the SDK's server/discover probe: a stdio server
// of an older protocol may never answer it, and the SDK waits for it as
// long as the whole startup may take, leaving no time for the handshake
// after it. When the probe is not answered within timeout, the
// connection answers it itself with "method not found", which makes the
// SDK fall back to initialize, and drops the server's answer if it
// comes after all.
type probeTransport struct {
	inner   mcpsdk.Transport
	timeout time.Duration
}

func (t *probeTransport) Connect(ctx context.Context) (mcpsdk.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &probeConn{Connection: c, timeout: t.timeout, injected: make(chan jsonrpc.Message, 1),
		msgs: make(chan readResult), done: make(chan struct{})}, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

type probeConn struct {
	mcpsdk.Connection
	timeout time.Duration

	injected chan jsonrpc.Message // the stand-in answer to the probe
	msgs     chan readResult      // what the server sent
	done     chan struct{}        // closed by Close
	pump     sync.Once
	closed   sync.Once

	mu       sync.Mutex
	probe    *jsonrpc.Request // the probe under way, if any
	timer    *time.Timer
	answered bool // the probe's answer went through, the server's or ours
	dropID   any  // the ID of a probe answered by us
}

func (c *probeConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == methodDiscover && req.IsCall() {
		c.mu.Lock()
		if c.probe == nil {
			c.probe = req
			c.timer = time.AfterFunc(c.timeout, c.expire)
		}
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

// expire answers the probe in the server's stead, unless it answered.
func (c *probeConn) expire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.answered {
		return
	}
	c.answered = true
	c.dropID = c.probe.ID.Raw()
	c.injected <- &jsonrpc.Response{ID: c.probe.ID,
		Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "server/discover not answered in time"}}
}

func (c *probeConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	c.pump.Do(func() { go c.readAll(ctx) })
	for {
		select {
		case m := <-c.injected:
			return m, nil
		case r := <-c.msgs:
			if r.err != nil {
				return nil, r.err
			}
			if c.isProbeAnswer(r.msg) {
				continue
			}
			return r.msg, nil
		case <-c.done:
			return nil, mcpsdk.ErrConnectionClosed
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// isProbeAnswer reports whether msg answers the probe after ours did;
// an answer in time stops the timer.
func (c *probeConn) isProbeAnswer(msg jsonrpc.Message) bool {
	resp, ok := msg.(*jsonrpc.Response)
	if !ok {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.probe == nil || resp.ID.Raw() != c.probe.ID.Raw() {
		return false
	}
	if c.answered {
		return c.dropID != nil
	}
	c.answered = true
	c.timer.Stop()
	return false
}

// readAll reads the server's messages for Read, until the connection
// fails or is closed.
func (c *probeConn) readAll(ctx context.Context) {
	for {
		m, err := c.Connection.Read(ctx)
		select {
		case c.msgs <- readResult{m, err}:
		case <-c.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (c *probeConn) Close() error {
	c.closed.Do(func() {
		close(c.done)
		c.mu.Lock()
		if c.timer != nil {
			c.timer.Stop()
		}
		c.mu.Unlock()
	})
	return c.Connection.Close()
}
