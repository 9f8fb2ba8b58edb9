package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// errConnectionClosed is wrapped by every error that says the connection
// to the server can carry no more messages: its process ended, its pipes
// or its HTTP endpoint failed, or agent-ls closed it. Such an error fails
// the server, which is started again on its next use; an error the
// server answered does not.
var errConnectionClosed = errors.New("the connection to the MCP server is closed")

// maxMessageBytes bounds one message from a server (a line on stdio, a
// body or an event over HTTP), so that a server writing without end
// cannot grow agent-ls's memory without limit.
const maxMessageBytes = 64 << 20

// maxAnswering is how many of a server's requests are answered at once.
const maxAnswering = 16

// JSON-RPC error codes agent-ls answers with.
const codeMethodNotFound = -32601

// message is one JSON-RPC 2.0 message of any kind: a request (method and
// id), a notification (method, no id) or a response (id, and result or
// error).
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is an error the server answered a request with: the server
// runs, the request was refused or failed there.
type rpcError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string {
	s := e.Message
	if s == "" {
		s = "an error without a message"
	}
	s = fmt.Sprintf("%s (JSON-RPC error %d)", s, e.Code)
	if d := bytes.TrimSpace(e.Data); len(d) > 0 && string(d) != "null" {
		s += ": " + textcut.Cut(string(d), 500)
	}
	return s
}

// outgoing is a message on its way to the server.
type outgoing struct {
	data []byte
	// call: the message is a request whose answer is awaited, its id id.
	call bool
	id   int64
}

// receiver takes what a transport reads from the server.
type receiver interface {
	// handle takes one message (or a batch of them) as it came.
	handle(raw []byte)
	// fail ends the connection: the transport can read no more.
	fail(err error)
}

// transport carries JSON-RPC messages between the client and a server.
type transport interface {
	// start hands the server's messages to r from now on.
	start(r receiver)
	// send gives msg to the server. The answer to a request may reach
	// the receiver before send returns (HTTP) or after (stdio).
	send(ctx context.Context, msg *outgoing) error
	// close releases the transport; reading ends.
	close()
}

// client is a JSON-RPC 2.0 client of one MCP server over a transport:
// requests with int ids, their answers routed back by id, the server's
// own requests answered, its notifications passed on.
type client struct {
	tr  transport
	log *slog.Logger
	// serverLog logs what the server causes, bounded (see floodLog).
	serverLog *floodLog
	// toolsChanged is called on notifications/tools/list_changed, on the
	// transport's reading goroutine: it must not block.
	toolsChanged func()

	nextID atomic.Int64
	// answering bounds the server's requests answered at once: a server
	// that floods requests and reads none of the answers gets no more
	// goroutines than this; what is over it goes unanswered.
	answering chan struct{}

	mu      sync.Mutex
	pending map[int64]chan *message
	err     error         // why the connection ended; nil while it runs
	done    chan struct{} // closed when it ended
}

func newClient(tr transport, log *slog.Logger, toolsChanged func()) *client {
	c := &client{tr: tr, log: log, serverLog: &floodLog{log: log}, toolsChanged: toolsChanged, pending: map[int64]chan *message{}, done: make(chan struct{}), answering: make(chan struct{}, maxAnswering)}
	tr.start(c)
	return c
}

// call sends a request and decodes its result into result (if not nil).
// An error the server answered is an *rpcError; a broken connection
// wraps errConnectionClosed; when ctx ends first, the server is told
// with notifications/cancelled and ctx.Err() is returned.
func (c *client) call(ctx context.Context, method string, params, result any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	id := c.nextID.Add(1)
	data, err := json.Marshal(&message{JSONRPC: "2.0", ID: idJSON(id), Method: method, Params: p})
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	ch := make(chan *message, 1)
	c.mu.Lock()
	if c.err != nil {
		err := c.err
		c.mu.Unlock()
		return err
	}
	c.pending[id] = ch
	c.mu.Unlock()
	defer func() {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
	}()

	if err := c.tr.send(ctx, &outgoing{data: data, call: true, id: id}); err != nil {
		if ctx.Err() != nil {
			c.cancelled(ctx, method, id)
			return ctx.Err()
		}
		return err
	}
	var m *message
	select {
	case m = <-ch:
	case <-ctx.Done():
		c.cancelled(ctx, method, id)
		return ctx.Err()
	case <-c.done:
		// The answer may have come just before the end.
		select {
		case m = <-ch:
		default:
			return c.closedErr()
		}
	}
	if m.Error != nil {
		return m.Error
	}
	if result != nil {
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("the server's answer to %s cannot be read: %w", method, err)
		}
	}
	return nil
}

// notify sends a notification.
func (c *client) notify(ctx context.Context, method string, params any) error {
	m := &message{JSONRPC: "2.0", Method: method}
	if params != nil {
		p, err := json.Marshal(params)
		if err != nil {
			return fmt.Errorf("%s: %w", method, err)
		}
		m.Params = p
	}
	data, err := json.Marshal(m)
	if err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	if err := c.closedErr(); err != nil {
		return err
	}
	return c.tr.send(ctx, &outgoing{data: data})
}

// cancelled tells the server that the request id (of method) is no
// longer awaited, in the background: the caller returns at once.
func (c *client) cancelled(ctx context.Context, method string, id int64) {
	if method == "initialize" {
		// The handshake is not cancelled: the connection is closed.
		return
	}
	reason := "the call was interrupted"
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		reason = "the call timed out"
	}
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		params := map[string]any{"requestId": id, "reason": reason}
		if err := c.notify(ctx, "notifications/cancelled", params); err != nil {
			c.log.Debug("MCP server: the cancellation was not sent", "err", err)
		}
	}()
}

// handle takes one message from the server, or a batch of them (which
// servers of 2025-03-26 may send).
func (c *client) handle(raw []byte) {
	raw = bytes.TrimSpace(raw)
	if len(raw) > 0 && raw[0] == '[' {
		var batch []json.RawMessage
		if err := json.Unmarshal(raw, &batch); err != nil {
			c.serverLog.logf(slog.LevelWarn, "MCP server: a message that is not JSON-RPC was left out", "err", err, "message", textcut.Cut(string(raw), 200))
			return
		}
		for _, m := range batch {
			c.handle(m)
		}
		return
	}
	var m message
	if err := json.Unmarshal(raw, &m); err != nil {
		c.serverLog.logf(slog.LevelWarn, "MCP server: a message that is not JSON-RPC was left out", "err", err, "message", textcut.Cut(string(raw), 200))
		return
	}
	switch {
	case m.Method != "" && len(m.ID) > 0:
		// Answered in the background: the transport's reader must not
		// wait for a write.
		select {
		case c.answering <- struct{}{}:
			go func() {
				defer func() { <-c.answering }()
				c.answer(&m)
			}()
		default:
			c.serverLog.logf(slog.LevelWarn, "MCP server: its request was left unanswered, too many are under way", "method", textcut.Cut(m.Method, 100))
		}
	case m.Method != "":
		c.notification(&m)
	case len(m.ID) > 0:
		c.response(&m)
	default:
		c.serverLog.logf(slog.LevelDebug, "MCP server: a message with neither method nor id was left out")
	}
}

// response routes an answer to the call awaiting it.
func (c *client) response(m *message) {
	id, err := strconv.ParseInt(string(m.ID), 10, 64)
	c.mu.Lock()
	ch := c.pending[id]
	delete(c.pending, id)
	c.mu.Unlock()
	if err != nil || ch == nil {
		c.serverLog.logf(slog.LevelDebug, "MCP server: an answer to no request under way was left out", "id", textcut.Cut(string(m.ID), 100))
		return
	}
	ch <- m
}

// notification reacts to a notification from the server.
func (c *client) notification(m *message) {
	switch m.Method {
	case "notifications/tools/list_changed":
		if c.toolsChanged != nil {
			c.toolsChanged()
		}
	default:
		c.serverLog.logf(slog.LevelDebug, "MCP server: notification left unread", "method", textcut.Cut(m.Method, 100))
	}
}

// answer answers a request of the server: ping gets its empty result;
// nothing else is offered (no roots, sampling or elicitation), so every
// other method is not found.
func (c *client) answer(m *message) {
	resp := &message{JSONRPC: "2.0", ID: m.ID}
	if m.Method == "ping" {
		resp.Result = json.RawMessage("{}")
	} else {
		resp.Error = &rpcError{Code: codeMethodNotFound, Message: "method not found: agent-ls does not offer " + textcut.Cut(m.Method, 100)}
	}
	data, err := json.Marshal(resp)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := c.tr.send(ctx, &outgoing{data: data}); err != nil {
		c.serverLog.logf(slog.LevelDebug, "MCP server: the answer to its request was not sent", "method", textcut.Cut(m.Method, 100), "err", err)
	}
}

// fail ends the connection: every call under way and every call after
// fails with an error wrapping errConnectionClosed and err.
func (c *client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		return
	}
	if errors.Is(err, errConnectionClosed) {
		c.err = err
	} else {
		c.err = fmt.Errorf("%w: %w", errConnectionClosed, err)
	}
	close(c.done)
}

// closedErr is why the connection ended, or nil while it runs.
func (c *client) closedErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// close ends the connection and releases its transport.
func (c *client) close() {
	c.fail(errors.New("closed by agent-ls"))
	c.tr.close()
	c.serverLog.window("before it was closed")
}

func idJSON(id int64) json.RawMessage {
	return strconv.AppendInt(nil, id, 10)
}
