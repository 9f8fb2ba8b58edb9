package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/agent-ls/agent-ls/internal/lspframe"
)

// rawServer is the built server driven over raw bytes, to send what no
// well-behaved editor would.
type rawServer struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Reader
	cmd *exec.Cmd
}

func startRaw(t *testing.T) *rawServer {
	t.Helper()
	cmd := exec.Command(binary, "--stdio")
	cmd.Dir = t.TempDir()
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=test", "OPENAI_BASE_URL=http://127.0.0.1:1", "XDG_STATE_HOME="+t.TempDir())
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); _ = cmd.Process.Kill(); _ = cmd.Wait() })
	s := &rawServer{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20), cmd: cmd}
	s.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"capabilities":{},"rootUri":null}}`)
	s.response("init")
	s.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
	return s
}

func (s *rawServer) send(body string) {
	s.t.Helper()
	if err := lspframe.Write(s.in, []byte(body)); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

func (s *rawServer) write(raw string) {
	s.t.Helper()
	if _, err := io.WriteString(s.in, raw); err != nil {
		s.t.Fatalf("write: %v", err)
	}
}

// read returns the next message's body. The process is killed by the
// cleanup if it never answers; the test's deadline reports it.
func (s *rawServer) read() string {
	s.t.Helper()
	body, err := lspframe.Read(s.out)
	if err != nil {
		s.t.Fatalf("reading a message: %v", err)
	}
	return string(body)
}

type rawResponse struct {
	ID    json.RawMessage `json:"id"`
	Error *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string          `json:"method"`
	Params json.RawMessage `json:"params"`
}

// response reads messages up to the next response, which must have the
// id given (as JSON text).
func (s *rawServer) response(id string) rawResponse {
	s.t.Helper()
	for {
		body := s.read()
		var r rawResponse
		if err := json.Unmarshal([]byte(body), &r); err != nil {
			s.t.Fatalf("not one message: %s", body)
		}
		if r.Method != "" {
			continue
		}
		if want, _ := json.Marshal(id); string(r.ID) != string(want) && string(r.ID) != id {
			s.t.Fatalf("response %s, want id %s", body, id)
		}
		return r
	}
}

func (s *rawServer) expectCode(id string, code int) {
	s.t.Helper()
	r := s.response(id)
	if r.Error == nil || r.Error.Code != code {
		s.t.Fatalf("response to %s: %+v, want error %d", id, r.Error, code)
	}
}

// alive checks that the server still answers requests, and not as one
// shutting down.
func (s *rawServer) alive(n int) {
	s.t.Helper()
	s.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"unknown/method"}`, n))
	s.expectCode(strconv.Itoa(n), -32601)
}

func (s *rawServer) batch() []rawResponse {
	s.t.Helper()
	body := s.read()
	var rs []rawResponse
	if err := json.Unmarshal([]byte(body), &rs); err != nil {
		s.t.Fatalf("want an array, got %s", body)
	}
	return rs
}

func TestWireEdgesAgainstTheBinary(t *testing.T) {
	s := startRaw(t)

	// A request with a null id is answered (LSP ids are integers or
	// strings), and not run: this shutdown must not stop the server.
	s.send(`{"jsonrpc":"2.0","id":null,"method":"shutdown"}`)
	s.expectCode("null", -32600)
	s.alive(1)

	// A batch of non-objects: Invalid Request for each, id null.
	s.send(`[1,2,3]`)
	rs := s.batch()
	if len(rs) != 3 {
		t.Fatalf("%d answers to a batch of 3", len(rs))
	}
	for _, r := range rs {
		if r.Error == nil || r.Error.Code != -32600 || string(r.ID) != "null" {
			t.Errorf("batch member answer %+v id %s, want -32600 with id null", r.Error, r.ID)
		}
	}
	// Mixed: one array, each member answered on its own terms.
	s.send(`[1,{"jsonrpc":"2.0","id":7,"method":"unknown/x"},{"jsonrpc":"2.0","method":"unknown/n"}]`)
	rs = s.batch()
	codes := map[string]int{}
	for _, r := range rs {
		codes[string(r.ID)] = r.Error.Code
	}
	if len(rs) != 2 || codes["null"] != -32600 || codes["7"] != -32601 {
		t.Errorf("mixed batch answered %v", codes)
	}
	s.send(`[]`)
	s.expectCode("null", -32600)

	// Notifications sent with an id are answered, not run: exit stays in.
	s.send(`{"jsonrpc":"2.0","id":8,"method":"initialized","params":{}}`)
	s.expectCode("8", -32600)
	s.send(`{"jsonrpc":"2.0","id":"e","method":"exit"}`)
	s.expectCode("e", -32600)
	s.alive(2)

	// A didChange with a negative position is refused and said so.
	uri := "file:///nonexistent/a.txt"
	s.send(`{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"` + uri + `","languageId":"text","version":1,"text":"a\n"}}}`)
	s.send(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"` + uri + `","version":2},"contentChanges":[{"range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}},"text":"X"}]}}`)
	var logged rawResponse
	if err := json.Unmarshal([]byte(s.read()), &logged); err != nil || logged.Method != "window/logMessage" ||
		!strings.Contains(string(logged.Params), "non-negative integer positions") {
		t.Errorf("after a negative position: %s %s, want a logMessage naming it", logged.Method, logged.Params)
	}

	// What worked before still does: garbage, a deeply nested and a huge
	// message, requests sent together.
	s.write("garbage\r\n\r\n")
	s.expectCode("null", -32700)
	s.send(`{"jsonrpc":"2.0","id":3,"method":"unknown/x","params":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}`)
	r := s.response("3")
	if r.Error == nil {
		t.Error("deeply nested message answered without error")
	}
	s.send(`{"jsonrpc":"2.0","id":4,"method":"unknown/x","params":{"s":"` + strings.Repeat("x", 20<<20) + `"}}`)
	s.expectCode("4", -32601)
	var burst strings.Builder
	for i := 100; i < 120; i++ {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"unknown/x"}`, i)
		lspframe.Write(&burst, []byte(body))
	}
	s.write(burst.String())
	seen := map[string]bool{}
	for range 20 {
		var r rawResponse
		if err := json.Unmarshal([]byte(s.read()), &r); err != nil {
			t.Fatal(err)
		}
		seen[string(r.ID)] = true
	}
	if len(seen) != 20 {
		t.Errorf("%d distinct answers to 20 requests", len(seen))
	}
	// A truncated frame at the end of input ends the server (a hang
	// would run into the test's deadline).
	s.write("Content-Length: 100\r\n\r\n{\"jsonrpc\"")
	s.in.Close()
	if err := s.cmd.Wait(); err == nil {
		t.Error("the server exited 0 without shutdown")
	}
}
