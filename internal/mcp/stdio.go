package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/textcut"
)

// errMessageTooLarge: a server sent a message longer than
// maxMessageBytes, which breaks the connection.
var errMessageTooLarge = fmt.Errorf("%w: a message from the server is longer than the %d MiB agent-ls reads", errConnectionClosed, maxMessageBytes>>20)

// stdoutFilter is what the SDK's stdio transport reads of a server's
// stdout: line by line, each a JSON-RPC message, whatever the server
// writes. The SDK ends the connection at the first line it cannot read,
// so a line that is not JSON-RPC (a server logging to its stdout) is
// left out here and logged, bounded; a batch (servers of 2025-03-26 may
// send one) is passed on message by message; a line over max bytes ends
// the connection.
type stdoutFilter struct {
	r    *bufio.Reader
	log  *floodLog
	max  int
	gate *requestGate
	// ended, when set, says why reading ended (the process exited).
	ended func() error

	mu   sync.Mutex
	next []byte // what is still to be read of the lines passed on
}

// maxAnswering is how many of a server's requests are answered at once.
const maxAnswering = 16

// stdioTransport is the SDK's stdio transport over r (the server's
// stdout, read through a stdoutFilter with lines of at most max bytes)
// and w (its stdin). A server's requests beyond maxAnswering unanswered
// ones are left out: the SDK answers each in a goroutine of its own, and
// a server that floods requests and reads none of the answers would
// otherwise get goroutines without end.
func stdioTransport(r io.ReadCloser, w io.WriteCloser, max int, log *floodLog, ended func() error) *sdk.IOTransport {
	g := &requestGate{open: map[string]bool{}}
	f := &stdoutFilter{r: bufio.NewReaderSize(r, 64<<10), log: log, max: max, ended: ended, gate: g}
	// The filter bounds each line.
	return &sdk.IOTransport{Reader: readCloser{f, r}, Writer: &stdinWriter{w: w, gate: g}, MaxLineLength: -1}
}

// requestGate counts the server's requests not answered yet.
type requestGate struct {
	mu   sync.Mutex
	open map[string]bool
}

func idKey(id jsonrpc.ID) string { return fmt.Sprintf("%T:%v", id.Raw(), id.Raw()) }

// admit reports whether the request id may be answered, and counts it.
func (g *requestGate) admit(id jsonrpc.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.open) >= maxAnswering {
		return false
	}
	g.open[idKey(id)] = true
	return true
}

// stdinWriter writes the SDK's messages to the server's stdin, counting
// the answers to the server's requests.
type stdinWriter struct {
	w    io.WriteCloser
	gate *requestGate
}

func (w *stdinWriter) Write(p []byte) (int, error) {
	n, err := w.w.Write(p)
	// The SDK writes one message, or one batch, at a time.
	if m, derr := jsonrpc.DecodeMessage(bytes.TrimSpace(p)); derr == nil {
		if r, ok := m.(*jsonrpc.Response); ok {
			w.gate.mu.Lock()
			delete(w.gate.open, idKey(r.ID))
			w.gate.mu.Unlock()
		}
	}
	return n, err
}

func (w *stdinWriter) Close() error { return w.w.Close() }

// readCloser reads from r and closes c.
type readCloser struct {
	r io.Reader
	c io.Closer
}

func (rc readCloser) Read(p []byte) (int, error) { return rc.r.Read(p) }
func (rc readCloser) Close() error               { return rc.c.Close() }

func (f *stdoutFilter) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.next) == 0 {
		line, err := readLine(f.r, f.max)
		if errors.Is(err, errMessageTooLarge) {
			return 0, err
		}
		f.pass(line)
		if err != nil && len(f.next) == 0 {
			if f.ended != nil {
				if why := f.ended(); why != nil {
					return 0, why
				}
			}
			return 0, err
		}
	}
	n := copy(p, f.next)
	f.next = f.next[n:]
	return n, nil
}

// pass queues the messages of line that are JSON-RPC, each on its line.
func (f *stdoutFilter) pass(line []byte) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return
	}
	msgs := []json.RawMessage{line}
	if line[0] == '[' {
		if err := json.Unmarshal(line, &msgs); err != nil {
			msgs = []json.RawMessage{line}
		}
	}
	for _, m := range msgs {
		msg, err := jsonrpc.DecodeMessage(m)
		if err != nil {
			f.log.logf(slog.LevelWarn, "MCP server: a message that is not JSON-RPC was left out", "err", err, "message", textcut.Cut(string(m), 200))
			continue
		}
		if r, ok := msg.(*jsonrpc.Request); ok && r.IsCall() && !f.gate.admit(r.ID) {
			f.log.logf(slog.LevelWarn, "MCP server: its request was left unanswered, too many are under way", "method", textcut.Cut(r.Method, 100))
			continue
		}
		f.next = append(append(f.next, bytes.TrimSpace(m)...), '\n')
	}
}

// readLine reads one line, without its end, of at most max bytes; a
// longer one is errMessageTooLarge. At the end of r, the last line comes
// with io.EOF.
func readLine(r *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(line)+len(chunk) > max+2 {
			return nil, errMessageTooLarge
		}
		line = append(line, chunk...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err != nil:
			return line, err
		}
		line = line[:len(line)-1]
		if n := len(line); n > 0 && line[n-1] == '\r' {
			line = line[:n-1]
		}
		if len(line) > max {
			return nil, errMessageTooLarge
		}
		return line, nil
	}
}
