package acp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// rawConn runs the server over pipes and speaks raw lines to it.
type rawConn struct {
	in  io.WriteCloser
	out *bufio.Reader
}

func serveRaw(t *testing.T, opts Options) *rawConn { return serveRawBy(t, opts, true) }

func serveRawBy(t *testing.T, opts Options, initByHand bool) *rawConn {
	t.Helper()
	_, in, out := servePipes(t, opts, initByHand)
	return &rawConn{in: in, out: bufio.NewReader(out)}
}

// ask writes line and returns the next line the server writes.
func (c *rawConn) ask(t *testing.T, line string) string {
	t.Helper()
	if _, err := io.WriteString(c.in, line+"\n"); err != nil {
		t.Fatal(err)
	}
	got, err := c.out.ReadString('\n')
	if err != nil {
		t.Fatalf("no answer to %s: %v", line, err)
	}
	return got
}

func TestInitializeAnswerIsTheSDKs(t *testing.T) {
	for _, tc := range []struct {
		name    string
		version string
		key     string
	}{
		{"key present", "1.2.3", ""},
		{"key missing", "dev", "ACME_API_KEY"},
		{"characters to escape", "1.0 \"<beta>\" & \u2028\x01\xff", "K\"<&>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := Options{Version: tc.version, KeyVariable: func() string { return tc.key }, NewAgent: func(cfg Config) (Agent, error) { return &fakeAgent{fe: cfg.Frontend}, nil }}
			s := newServer(opts)
			want, err := json.Marshal(s.initializeResponse())
			if err != nil {
				t.Fatal(err)
			}
			if got, ok := s.appendInitializeResult(nil, s.authMethods()); !ok || string(got) != string(want) {
				t.Fatalf("by hand:\n%s\nthe SDK's:\n%s", got, want)
			}
			// Over the wire: the answer written by hand and the SDK's are
			// the same line.
			req := `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true},"clientInfo":{"name":"zed","version":"1"}}}`
			hand := serveRaw(t, opts).ask(t, req)
			viaSDK := serveRawBy(t, opts, false).ask(t, req)
			if hand != viaSDK {
				t.Fatalf("by hand:\n%s\nthe SDK's:\n%s", hand, viaSDK)
			}
			if wantLine := `{"jsonrpc":"2.0","id":7,"result":` + string(want) + "}\n"; hand != wantLine {
				t.Fatalf("answer:\n%s\nwant:\n%s", hand, wantLine)
			}
		})
	}
}

// An auth method agent-ls does not write by hand leaves the answer to the
// SDK.
func TestInitializeResultOnlyByHandForItsOwnMethods(t *testing.T) {
	s := newServer(Options{KeyVariable: func() string { return "K" }})
	ms := s.authMethods()
	if _, ok := s.appendInitializeResult(nil, ms); !ok {
		t.Fatal("the env_var method was not written by hand")
	}
	ms[0].EnvVar.Vars[0].Secret = true
	if b, ok := s.appendInitializeResult(nil, ms); ok {
		t.Errorf("a secret variable was written by hand: %s", b)
	}
	if b, ok := s.appendInitializeResult(nil, []sdk.AuthMethod{{Agent: &sdk.AuthMethodAgent{Id: "a", Name: "A"}}}); ok {
		t.Errorf("an agent method was written by hand: %s", b)
	}
}

func TestInitializeLeftToTheSDK(t *testing.T) {
	opts := Options{Version: "v", NewAgent: func(cfg Config) (Agent, error) { return &fakeAgent{fe: cfg.Frontend}, nil }}
	for _, tc := range []struct {
		line string
		want string // in the answer
	}{
		// a field agent-ls reads, of the wrong type: the SDK's error
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":"yes"}}}}`, `"code":-32602`},
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1"}}`, `"code":-32602`},
		// no params: the SDK's error
		{`{"jsonrpc":"2.0","id":1,"method":"initialize"}`, `"code":-32602`},
		// a string id is answered as is, by hand
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

// The fast answer takes the capabilities as the SDK's Initialize does:
// a client that offers fs/read_text_file gets read_file through it.
func TestInitializeByHandTakesTheCapabilities(t *testing.T) {
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

func TestTextChunkIsTheSDKs(t *testing.T) {
	var sdkOut strings.Builder
	conn := sdk.NewAgentSideConnection(newServer(Options{}), &sdkOut, strings.NewReader(""))
	for _, text := range []string{"", "hello", "a \"quoted\" <b>&amp;</b>\n\ttab \u2028\u2029 \x00\x1f", "naïve 日本語 🙂", "bad \xff\xfe utf-8"} {
		for _, u := range []sdk.SessionUpdate{sdk.UpdateAgentMessageText(text), sdk.UpdateAgentThoughtText(text)} {
			sdkOut.Reset()
			if err := conn.SessionUpdate(context.Background(), sdk.SessionNotification{SessionId: "s-1\"<", Update: u}); err != nil {
				t.Fatal(err)
			}
			got, ok := appendTextChunk(nil, "s-1\"<", u)
			if !ok || string(got) != sdkOut.String() {
				t.Errorf("by hand (%v):\n%s\nthe SDK's:\n%s", ok, got, sdkOut.String())
			}
		}
	}
	// What is more than plain text is the SDK's to write.
	withMeta := sdk.UpdateAgentMessageText("x")
	withMeta.AgentMessageChunk.Meta = map[string]any{"k": 1}
	withID := sdk.UpdateAgentThoughtText("x")
	withID.AgentThoughtChunk.MessageId = sdk.Ptr("m1")
	annotated := sdk.UpdateAgentMessageText("x")
	annotated.AgentMessageChunk.Content.Text.Annotations = &sdk.Annotations{}
	for _, u := range []sdk.SessionUpdate{withMeta, withID, annotated,
		sdk.UpdateAgentMessage(sdk.ImageBlock("AAAA", "image/png")),
		sdk.UpdateUserMessageText("x"),
		{AgentMessageChunk: sdk.UpdateAgentMessageText("x").AgentMessageChunk, AgentThoughtChunk: sdk.UpdateAgentThoughtText("y").AgentThoughtChunk},
	} {
		if b, ok := appendTextChunk(nil, "s", u); ok {
			t.Errorf("written by hand: %s", b)
		}
	}
}

// After an initialize the SDK refuses, the requests behind it do not wait
// for an answer that will never come.
func TestRefusedInitializeHoldsNothing(t *testing.T) {
	s := newServer(Options{})
	if s.answerInitialize([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"one"}}`)) {
		t.Fatal("a request the SDK refuses was answered by hand")
	}
	if !s.initArrived.Load() {
		t.Fatal("the initialize was not noted")
	}
	select {
	case <-s.ready:
	default:
		t.Fatal("the requests behind a refused initialize would wait for it")
	}
	// One the SDK takes is still waited for (its answer marks it ready).
	s = newServer(Options{})
	s.answerInitialize([]byte(`{"jsonrpc":"2.0","id":{"odd":1},"method":"initialize","params":{"protocolVersion":1}}`))
	select {
	case <-s.ready:
		t.Fatal("ready before the SDK answered")
	default:
	}
}
