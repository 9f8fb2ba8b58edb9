package acp

import (
	"bufio"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"
)

// rawConn runs the server over pipes and speaks raw lines to it.
type rawConn struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func serveRaw(t *testing.T, opts Options) *rawConn {
	t.Helper()
	_, in, out := servePipes(t, opts)
	return &rawConn{in: in, out: bufio.NewReader(out)}
}

// send writes lines, each as one message.
func (c *rawConn) send(t *testing.T, lines ...string) {
	t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.in, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
}

// next returns the next line the server writes, failing the test when
// none comes within 10 seconds.
func (c *rawConn) next(t *testing.T) string {
	t.Helper()
	type line struct {
		s   string
		err error
	}
	got := make(chan line, 1)
	go func() {
		s, err := c.out.ReadString('\n')
		got <- line{s, err}
	}()
	select {
	case l := <-got:
		if l.err != nil {
			t.Fatalf("no line: %v", l.err)
		}
		return l.s
	case <-time.After(10 * time.Second):
		t.Fatal("no line within 10 seconds")
		return ""
	}
}

// ask writes line and returns the next line the server writes.
func (c *rawConn) ask(t *testing.T, line string) string {
	t.Helper()
	c.send(t, line)
	return c.next(t)
}

func TestInitializeRequests(t *testing.T) {
	opts := Options{Version: "v", NewAgent: func(cfg Config) (Agent, error) { return &fakeAgent{fe: cfg.Frontend}, nil }}
	for _, tc := range []struct {
		line string
		want string // in the answer
	}{
		// a field of the wrong type: the SDK's error
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":"yes"}}}}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1"}}`, `"code":-32602`},
		// no params: the SDK's error
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, `"code":-32602`},
		// a string id is answered as is
		{`{"jsonrpc":"2.0","id":"a\"b","method":"initialize","params":{"protocolVersion":1}}`, `{"jsonrpc":"2.0","id":"a\"b","result":{"agentCapabilities":`},
		// "initialize" elsewhere than the method: not an initialize
		{`{"jsonrpc":"2.0","id":1,"method":"session/list","params":{"cwd":"initialize"}}`, `initialize first`},
	} {
		got := serveRaw(t, opts).ask(t, tc.line)
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s\nanswered %s\nwant %s in it", tc.line, got, tc.want)
		}
	}
}

// Initialize takes the client's capabilities: a client that offers
// fs/read_text_file gets read_file through it.
func TestInitializeTakesTheCapabilities(t *testing.T) {
	for _, read := range []bool{false, true} {
		got := make(chan Config, 1)
		opts := Options{Version: "v", NewAgent: func(cfg Config) (Agent, error) { got <- cfg; return &fakeAgent{fe: cfg.Frontend}, nil }}
		c := serveRaw(t, opts)
		caps := `{"fs":{"readTextFile":false,"writeTextFile":true}}`
		if read {
			caps = `{"fs":{"readTextFile":true}}`
		}
		c.ask(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":`+caps+`}}`)
		if cfg := <-got; (cfg.Files != nil) != read {
			t.Errorf("readTextFile %v: files through the client: %v", read, cfg.Files != nil)
		}
	}
}

// wireKind is "answer <id>" for an answer, else the method.
func wireKind(t *testing.T, line string) string {
	t.Helper()
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	if err := json.Unmarshal([]byte(line), &m); err != nil {
		t.Fatalf("not JSON: %s", line)
	}
	if m.Method != "" {
		return m.Method
	}
	return "answer " + string(m.ID)
}

// A client may send session/new right behind initialize, without waiting
// for its answer: session/new is handled after initialize, and the wire
// carries initialize's answer, then session/new's, then the session's
// first update (its commands). The ids are written as the client wrote
// them, HTML characters and all.
func TestPipelinedSessionNewFollowsInitialize(t *testing.T) {
	opts := Options{Version: "v", NewAgent: func(cfg Config) (Agent, error) {
		time.Sleep(20 * time.Millisecond) // a slow start does not reorder anything
		return &fakeAgent{fe: cfg.Frontend}, nil
	}}
	for _, id := range []string{`1`, `"<init>"`} {
		c := serveRaw(t, opts)
		c.send(t, `{"jsonrpc":"2.0","id":`+id+`,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
			`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
		var order []string
		for range 3 {
			order = append(order, wireKind(t, c.next(t)))
		}
		want := []string{"answer " + strings.ReplaceAll(strings.ReplaceAll(id, "<", `\u003c`), ">", `\u003e`), "answer 2", "session/update"}
		if strings.Join(order, ",") != strings.Join(want, ",") {
			t.Errorf("id %s: wire order %q, want %q", id, order, want)
		}
	}
}

// After an initialize the SDK refuses, a session/new behind it does not
// wait for an answer that will never come: it is answered at once, that
// initialize comes first.
func TestRefusedInitializeHoldsNothing(t *testing.T) {
	opts := Options{Version: "v", NewAgent: func(cfg Config) (Agent, error) { return &fakeAgent{fe: cfg.Frontend}, nil }}
	c := serveRaw(t, opts)
	start := time.Now()
	c.send(t, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"one"}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/w","mcpServers":[]}}`)
	var answers string
	for range 2 {
		answers += c.next(t)
	}
	if !strings.Contains(answers, `"id":1,"error":{"code":-32602`) || !strings.Contains(answers, `initialize first`) {
		t.Errorf("answers:\n%s", answers)
	}
	if d := time.Since(start); d > clientTimeout/2 {
		t.Errorf("session/new waited %v for a refused initialize", d)
	}
}

// An initialize whose id is a number beyond float64 is still matched to
// its answer: the request behind it finds the agent, without waiting.
func TestHugeInitializeIDIsMatched(t *testing.T) {
	opts := Options{Version: "v", NewAgent: func(cfg Config) (Agent, error) { return &fakeAgent{fe: cfg.Frontend}, nil }}
	c := serveRaw(t, opts)
	start := time.Now()
	c.send(t, `{"jsonrpc":"2.0","id":1e400,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`,
		`{"jsonrpc":"2.0","id":2,"method":"session/list","params":{}}`)
	var answers string
	for range 2 {
		answers += c.next(t)
	}
	if !strings.Contains(answers, `"id":2,"result"`) {
		t.Errorf("answers:\n%s", answers)
	}
	if d := time.Since(start); d > clientTimeout/2 {
		t.Errorf("session/list waited %v behind an initialize with a huge id", d)
	}
}
