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
)

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

// stdioClient is a client over pipes to a fake server; changed counts
// its list_changed notifications. maxLine bounds a line (0: the default).
func stdioClient(t *testing.T, maxLine int) (*client, *fakeStdio, *atomic.Int64) {
	t.Helper()
	toClient, serverOut := io.Pipe()
	serverIn, fromClient := io.Pipe()
	tr := newStreamTransport(toClient, fromClient, func() {
		toClient.Close()
		fromClient.Close()
	})
	if maxLine > 0 {
		tr.max = maxLine
	}
	var changed atomic.Int64
	c := newClient(tr, slog.New(slog.DiscardHandler), func() { changed.Add(1) })
	t.Cleanup(func() {
		c.close()
		serverOut.Close()
		serverIn.Close()
	})
	return c, &fakeStdio{t: t, in: bufio.NewReader(serverIn), out: serverOut}, &changed
}

// callAsync calls method in the background.
func callAsync(c *client, ctx context.Context, method string) <-chan error {
	done := make(chan error, 1)
	go func() {
		var res map[string]any
		done <- c.call(ctx, method, map[string]any{}, &res)
	}()
	return done
}

func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// TestHandshake: initialize asks for the latest version with no
// capabilities, accepts an older one it speaks and sends
// notifications/initialized; a version it does not speak is refused with
// both named.
func TestHandshake(t *testing.T) {
	c, srv, _ := stdioClient(t, 0)
	done := make(chan error, 1)
	var version string
	go func() {
		var err error
		version, err = initialize(testCtx(t), c, "1.2.3")
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
	if p["protocolVersion"] != latestProtocolVersion || string(caps) != "{}" ||
		fmt.Sprint(p["clientInfo"]) != "map[name:agent-ls version:1.2.3]" {
		t.Errorf("initialize params %s", m.Params)
	}
	srv.answer(m, `{"protocolVersion":"2024-11-05","capabilities":{},"serverInfo":{"name":"old","version":"0"}}`)
	if m := srv.read(); m.Method != "notifications/initialized" || len(m.ID) != 0 {
		t.Errorf("second message %+v", m)
	}
	if err := <-done; err != nil || version != "2024-11-05" {
		t.Fatalf("initialize: %q, %v", version, err)
	}

	c2, srv2, _ := stdioClient(t, 0)
	go func() {
		_, err := initialize(testCtx(t), c2, "1.2.3")
		done <- err
	}()
	srv2.answer(srv2.read(), `{"protocolVersion":"2099-01-01","capabilities":{},"serverInfo":{"name":"new","version":"0"}}`)
	err := <-done
	if err == nil || !strings.Contains(err.Error(), `"2099-01-01"`) || !strings.Contains(err.Error(), latestProtocolVersion) {
		t.Errorf("a version agent-ls does not speak: %v", err)
	}
}

// TestClientHostileLines: lines that are not JSON and answers to no
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
	srv.write("")
	srv.answer(m, `{"tools":[]}`)
	if err := <-done; err != nil {
		t.Fatalf("call after garbage: %v", err)
	}
	// A batch is taken message by message.
	done = callAsync(c, testCtx(t), "tools/list")
	m = srv.read()
	srv.write(fmt.Sprintf(`[{"jsonrpc":"2.0","method":"notifications/message","params":{}},{"jsonrpc":"2.0","id":%s,"result":{}}]`, m.ID))
	if err := <-done; err != nil {
		t.Fatalf("call answered in a batch: %v", err)
	}
}

// TestClientLineTooLong: a line over the bound breaks the connection:
// the call under way and every call after fail as a transport error.
func TestClientLineTooLong(t *testing.T) {
	c, srv, _ := stdioClient(t, 1<<10)
	done := callAsync(c, testCtx(t), "tools/list")
	srv.read()
	go func() {
		// The client stops reading at the bound: the rest of the line is
		// never read, and the pipe's write ends when the test does.
		_, _ = io.WriteString(srv.out, `{"jsonrpc":"2.0","id":1,"result":{"x":"`+strings.Repeat("x", 4<<10)+`"}}`+"\n")
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
// result, and any other request with "method not found", its id kept.
func TestClientServerRequests(t *testing.T) {
	_, srv, _ := stdioClient(t, 0)
	srv.write(`{"jsonrpc":"2.0","id":"p1","method":"ping"}`)
	m := srv.read()
	if string(m.ID) != `"p1"` || string(m.Result) != "{}" || m.Error != nil {
		t.Errorf("answer to ping %+v", m)
	}
	for i, method := range []string{"roots/list", "sampling/createMessage", "elicitation/create"} {
		srv.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":{}}`, i, method))
		m := srv.read()
		if string(m.ID) != fmt.Sprint(i) || m.Error == nil || m.Error.Code != codeMethodNotFound || m.Result != nil {
			t.Errorf("answer to %s %+v", method, m)
		}
	}
}

// TestClientNotifications: list_changed reaches the handler; other
// notifications are left out.
func TestClientNotifications(t *testing.T) {
	c, srv, changed := stdioClient(t, 0)
	srv.write(`{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"hi"}}`)
	srv.write(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	// Messages are handled in order: once this call is answered, the
	// notification before it was.
	done := callAsync(c, testCtx(t), "tools/list")
	srv.answer(srv.read(), "{}")
	if err := <-done; err != nil {
		t.Fatal(err)
	}
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
	srv.answer(srv.read(), "{}")
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
	var re *rpcError
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
	if err := <-done; !errors.Is(err, errConnectionClosed) {
		t.Errorf("call: %v", err)
	}
}

// TestClientRequestFlood: a server that sends request after request and
// reads none of the answers gets at most maxAnswering of them under way
// (the rest go unanswered), and its connection still serves calls.
func TestClientRequestFlood(t *testing.T) {
	c, srv, _ := stdioClient(t, 0)
	before := runtime.NumGoroutine()
	for i := range 20 * maxAnswering {
		srv.write(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, i))
	}
	if n := runtime.NumGoroutine() - before; n > maxAnswering+2 {
		t.Errorf("%d goroutines more after the flood, want at most %d", n, maxAnswering+2)
	}
	for range maxAnswering {
		if m := srv.read(); string(m.Result) != "{}" {
			t.Fatalf("answer %+v", m)
		}
	}
	done := callAsync(c, testCtx(t), "tools/list")
	for {
		m := srv.read()
		if m.Method == "tools/list" {
			srv.answer(m, "{}")
			break
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
