package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// message is one JSON-RPC 2.0 message of any kind, as the fake servers
// of these tests read and write it.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *struct {
		Code    int64           `json:"code"`
		Message string          `json:"message"`
		Data    json.RawMessage `json:"data,omitempty"`
	} `json:"error,omitempty"`
}

// fakeStdio is the server's end of a stdio connection, scripted by a
// test: it reads what the client writes and writes what the test says.
type fakeStdio struct {
	t   *testing.T
	in  *bufio.Reader
	out *io.PipeWriter
}

// read reads the client's next message.
func (f *fakeStdio) read() *message {
	f.t.Helper()
	line, err := f.in.ReadBytes('\n')
	if err != nil {
		f.t.Fatalf("reading the client: %v", err)
	}
	var m message
	if err := json.Unmarshal(line, &m); err != nil {
		f.t.Fatalf("the client wrote %q: %v", line, err)
	}
	return &m
}

// write writes s and a newline to the client.
func (f *fakeStdio) write(s string) {
	f.t.Helper()
	if _, err := io.WriteString(f.out, s+"\n"); err != nil {
		f.t.Fatalf("writing to the client: %v", err)
	}
}

// answer writes the answer result to the request m.
func (f *fakeStdio) answer(m *message, result string) {
	f.t.Helper()
	f.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":%s}`, m.ID, result))
}

// handshake answers the client's initialize with version and reads its
// notifications/initialized.
func (f *fakeStdio) handshake(version string) {
	f.t.Helper()
	m := f.read()
	if m.Method != "initialize" {
		f.t.Fatalf("first message %+v", m)
	}
	f.answer(m, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{"listChanged":true}},"serverInfo":{"name":"fake","version":"0"}}`, version))
	if m := f.read(); m.Method != "notifications/initialized" {
		f.t.Fatalf("second message %+v", m)
	}
}

// pipeTransport is the client's end of a stdio connection over pipes to
// a fake server, read through a stdoutFilter with lines of at most max
// bytes (0: the default).
func pipeTransport(t *testing.T, log *floodLog, max int) (*sdk.IOTransport, *fakeStdio) {
	toClient, serverOut := io.Pipe()
	serverIn, fromClient := io.Pipe()
	if max == 0 {
		max = maxMessageBytes
	}
	t.Cleanup(func() {
		serverOut.Close()
		serverIn.Close()
	})
	return stdioTransport(toClient, fromClient, max, log, nil), &fakeStdio{t: t, in: bufio.NewReader(serverIn), out: serverOut}
}

// stdioClient is a client over pipes to a fake server, the handshake
// made; changed counts its list_changed notifications. maxLine bounds a
// line (0: the default).
func stdioClient(t *testing.T, maxLine int) (*client, *fakeStdio, *atomic.Int64) {
	t.Helper()
	return stdioClientLog(t, maxLine, slog.New(slog.DiscardHandler))
}

// stdioClientLog is stdioClient logging to log.
func stdioClientLog(t *testing.T, maxLine int, log *slog.Logger) (*client, *fakeStdio, *atomic.Int64) {
	t.Helper()
	fl := &floodLog{log: log}
	tr, srv := pipeTransport(t, fl, maxLine)
	var changed atomic.Int64
	done := make(chan error, 1)
	var c *client
	go func() {
		var err error
		c, err = connectClient(testCtx(t), tr, "test", fl, clientHooks{toolsChanged: func() { changed.Add(1) }})
		done <- err
	}()
	srv.handshake("2025-11-25")
	if err := <-done; err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(c.close)
	return c, srv, &changed
}

// callAsync calls method (tools/list or tools/call) in the background.
func callAsync(c *client, ctx context.Context, method string) <-chan error {
	done := make(chan error, 1)
	go func() {
		var err error
		if method == "tools/list" {
			_, err = c.listTools(ctx, "")
		} else {
			_, err = c.callTool(ctx, "t", json.RawMessage(`{}`))
		}
		done <- err
	}()
	return done
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestHandshake: initialize asks for protocolVersion with no
// capabilities, accepts an older one it speaks and sends
// notifications/initialized; a version it does not speak is refused with
// both named.
func TestHandshake(t *testing.T) {
	log := &floodLog{log: slog.New(slog.DiscardHandler)}
	tr, srv := pipeTransport(t, log, 0)
	done := make(chan error, 1)
	var c *client
	go func() {
		var err error
		c, err = connectClient(testCtx(t), tr, "1.2.3", log, clientHooks{})
		done <- err
	}()
	m := srv.read()
	if m.Method != "initialize" {
		t.Fatalf("first message %+v", m)
	}
	var p map[string]any
	if err := json.Unmarshal(m.Params, &p); err != nil {
		t.Fatal(err)
	}
	caps, _ := json.Marshal(p["capabilities"])
	// Roots are offered; sampling and elicitation are not.
	if p["protocolVersion"] != protocolVersion || string(caps) != `{"roots":{"listChanged":true}}` ||
		fmt.Sprint(p["clientInfo"]) != "map[name:agent-ls version:1.2.3]" {
		t.Errorf("initialize params %s", m.Params)
	}
	srv.answer(m, `{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"old","version":"0"}}`)
	if m := srv.read(); m.Method != "notifications/initialized" || len(m.ID) != 0 {
		t.Errorf("second message %+v", m)
	}
	if err := <-done; err != nil || c.cs.InitializeResult().ProtocolVersion != "2024-11-05" {
		t.Fatalf("initialize: %v", err)
	}
	c.close()

	tr2, srv2 := pipeTransport(t, log, 0)
	go func() {
		_, err := connectClient(testCtx(t), tr2, "1.2.3", log, clientHooks{})
		done <- err
	}()
	srv2.answer(srv2.read(), `{"protocolVersion":"2099-01-01","capabilities":{},"serverInfo":{"name":"new","version":"0"}}`)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), `"2099-01-01"`) || !strings.Contains(err.Error(), protocolVersion) {
		t.Errorf("a version agent-ls does not speak: %v", err)
	}
}

// TestClientHostileLines: lines that are not JSON-RPC and answers to no
// request under way are left out; the answer after them goes through.
func TestClientHostileLines(t *testing.T) {
	c, srv, _ := stdioClient(t, 0)
	done := callAsync(c, testCtx(t), "tools/list")
	m := srv.read()
	srv.write("this is a log line on stdout, not JSON")
	srv.write(`{"jsonrpc":"2.0","id":`)
	srv.write(`{"jsonrpc":"2.0","id":999,"result":{}}`)
	srv.write(`{"jsonrpc":"2.0","id":"abc","result":{}}`)
	srv.write(`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}`)
	srv.write(`{"jsonrpc":"2.0"}`)
	srv.write(`[]`)
	srv.write("")
	srv.answer(m, `{"tools":[]}`)
	if err := <-done; err != nil {
		t.Fatalf("call after garbage: %v", err)
	}
	// A batch is taken message by message.
	done = callAsync(c, testCtx(t), "tools/list")
	m = srv.read()
	srv.write(fmt.Sprintf(`[{"jsonrpc":"2.0","method":"notifications/message","params":{}},{"jsonrpc":"2.0","id":%s,"result":{"tools":[]}}]`, m.ID))
	if err := <-done; err != nil {
		t.Fatalf("call answered in a batch: %v", err)
	}
}

// TestClientLineTooLong: a line over the bound breaks the connection:
// the call under way and every call after fail as a transport error.
func TestClientLineTooLong(t *testing.T) {
	c, srv, _ := stdioClient(t, 1<<10)
	done := callAsync(c, testCtx(t), "tools/list")
	m := srv.read()
	go func() {
		// The client stops reading at the bound: the rest of the line is
		// never read, and the pipe's write ends when the test does.
		_, _ = io.WriteString(srv.out, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":{"x":"`+strings.Repeat("x", 4<<10)+`"}}`+"\n")
	}()
	err := <-done
	if !errors.Is(err, errMessageTooLarge) || !isTransportError(err) {
		t.Fatalf("call: %v", err)
	}
	if err := <-callAsync(c, testCtx(t), "tools/list"); !isTransportError(err) {
		t.Errorf("call after: %v", err)
	}
}

// TestClientServerRequests: the server's ping is answered with an empty
// result, roots/list with no roots, and any other request with an
// error, its id kept: agent-ls offers no roots, sampling or elicitation.
func TestClientServerRequests(t *testing.T) {
	_, srv, _ := stdioClient(t, 0)
	srv.write(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	m := srv.read()
	if string(m.ID) != `"p1"` || string(m.Result) != "{}" || m.Error != nil {
		t.Errorf("answer to ping %+v", m)
	}
	srv.write(`{"jsonrpc":"2.0","id":"r1","method":"roots/list","params":{}}`)
	if m := srv.read(); string(m.ID) != `"r1"` || string(m.Result) != `{"roots":[]}` {
		t.Errorf("answer to roots/list %+v (%s)", m, m.Result)
	}
	for i, method := range []string{"sampling/createMessage", "elicitation/create"} {
		srv.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, i, method))
		m := srv.read()
		if string(m.ID) != fmt.Sprint(i) || m.Error == nil || m.Result != nil {
			t.Errorf("answer to %s %+v (%s)", method, m, m.Result)
		}
	}
}

// TestClientNotifications: list_changed reaches the handler; other
// notifications are left out.
func TestClientNotifications(t *testing.T) {
	c, srv, changed := stdioClient(t, 0)
	srv.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
	srv.write(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	// The SDK handles notifications in goroutines of their own: the
	// notification may come after the answer that followed it.
	done := callAsync(c, testCtx(t), "tools/list")
	srv.answer(srv.read(), `{"tools":[]}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); changed.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if n := changed.Load(); n != 1 {
		t.Errorf("%d list_changed", n)
	}
}

// TestClientCancel: a call whose context ends tells the server with
// notifications/cancelled and returns the context's error; its late
// answer is left out.
func TestClientCancel(t *testing.T) {
	c, srv, _ := stdioClient(t, 0)
	ctx, cancel := context.WithCancel(context.Background())
	done := callAsync(c, ctx, "tools/call")
	m := srv.read()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("call: %v", err)
	}
	n := srv.read()
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
		Reason    string          `json:"reason"`
	}
	if err := json.Unmarshal(n.Params, &p); err != nil || n.Method != "notifications/cancelled" || string(p.RequestID) != string(m.ID) || p.Reason == "" {
		t.Errorf("cancellation %+v (%s)", n, n.Params)
	}
	srv.answer(m, "{}")
	done = callAsync(c, testCtx(t), "tools/list")
	srv.answer(srv.read(), `{"tools":[]}`)
	if err := <-done; err != nil {
		t.Errorf("call after a cancel: %v", err)
	}
}

// TestClientErrors: an error the server answers keeps its code, message
// and data and is not a transport error; the server closing its stdout
// fails the call under way and those after as transport errors.
func TestClientErrors(t *testing.T) {
	c, srv, _ := stdioClient(t, 0)
	done := callAsync(c, testCtx(t), "tools/call")
	m := srv.read()
	srv.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"error":{"code":-32602,"message":"unknown tool","data":{"tool":"x"}}}`, m.ID))
	err := <-done
	var re *jsonrpc.Error
	if !errors.As(err, &re) || re.Code != -32602 || re.Message != "unknown tool" || string(re.Data) != `{"tool":"x"}` || isTransportError(err) {
		t.Errorf("error answer: %v", err)
	}
	// A result that is not what the method answers is the server's
	// fault, not the connection's.
	done = callAsync(c, testCtx(t), "tools/list")
	srv.answer(srv.read(), `"a string"`)
	if err := <-done; err == nil || isTransportError(err) {
		t.Errorf("unreadable result: %v", err)
	}

	done = callAsync(c, testCtx(t), "tools/call")
	srv.read()
	srv.out.Close()
	if err := <-done; !isTransportError(err) {
		t.Errorf("call when the server closed: %v", err)
	}
	if err := <-callAsync(c, testCtx(t), "tools/list"); !isTransportError(err) {
		t.Errorf("call after: %v", err)
	}
}

// TestClientClose: closing the client fails the call under way as a
// transport error.
func TestClientClose(t *testing.T) {
	c, srv, _ := stdioClient(t, 0)
	done := callAsync(c, testCtx(t), "tools/call")
	srv.read()
	c.close()
	if err := <-done; !isTransportError(err) {
		t.Errorf("call: %v", err)
	}
}

// TestClientRequestFlood: a server that sends request after request and
// reads none of the answers gets at most a few goroutines for them, and
// its connection still serves calls.
func TestClientRequestFlood(t *testing.T) {
	const bound = maxAnswering
	c, srv, _ := stdioClient(t, 0)
	before := runtime.NumGoroutine()
	for i := range 20 * bound {
		srv.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
	}
	if n := runtime.NumGoroutine() - before; n > bound+2 {
		t.Errorf("%d goroutines more after the flood, want at most %d", n, bound+2)
	}
	for range bound {
		if m := srv.read(); string(m.Result) != "{}" {
			t.Fatalf("answer %+v", m)
		}
	}
	done := callAsync(c, testCtx(t), "tools/list")
	for {
		m := srv.read()
		if m.Method == "tools/list" {
			srv.answer(m, `{"tools":[]}`)
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
