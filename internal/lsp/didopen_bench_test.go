package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/agent-ls/agent-ls/internal/lspframe"
)

// pipeConn is one end of two OS pipes, as the server's stdin and stdout
// are.
type pipeConn struct {
	io.Reader
	io.Writer
	closers []io.Closer
}

func (p pipeConn) Close() error {
	for _, c := range p.closers {
		c.Close()
	}
	return nil
}

// pipePair returns the server's end and the editor's end.
func pipePair(tb testing.TB) (server, editor pipeConn) {
	tb.Helper()
	inR, inW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		tb.Fatal(err)
	}
	return pipeConn{inR, outW, []io.Closer{inR, outW}}, pipeConn{outR, inW, []io.Closer{outR, inW}}
}

// frameClient writes raw frames to a server and waits for the answers to
// its requests, dropping everything else the server sends.
type frameClient struct {
	w       io.Writer
	answers chan int64
}

func newFrameClient(tb testing.TB, ed pipeConn) *frameClient {
	c := &frameClient{w: ed.Writer, answers: make(chan int64, 16)}
	go func() {
		r := bufio.NewReader(ed.Reader)
		for {
			body, err := lspframe.Read(r)
			if err != nil {
				close(c.answers)
				return
			}
			var msg struct {
				ID     *int64          `json:"id"`
				Method string          `json:"method"`
				Error  json.RawMessage `json:"error"`
			}
			if json.Unmarshal(body, &msg) == nil && msg.ID != nil && msg.Method == "" {
				c.answers <- *msg.ID
			}
		}
	}()
	return c
}

// call sends a request and waits for its answer.
func (c *frameClient) call(tb testing.TB, id int64, method, params string) {
	tb.Helper()
	if err := lspframe.Write(c.w, fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)); err != nil {
		tb.Fatal(err)
	}
	select {
	case got, ok := <-c.answers:
		if !ok || got != id {
			tb.Fatalf("answer %d (%v), want %d", got, ok, id)
		}
	case <-time.After(time.Minute):
		tb.Fatalf("no answer to %s", method)
	}
}

// didOpenFrames returns n didOpen frames of documents of size bytes, in
// one buffer, as an editor restoring its session writes them.
func didOpenFrames(dir string, n, size int) (frames []byte, uris []string) {
	frames = make([]byte, 0, n*(size+size/8+256))
	line := strings.Repeat("y", 70) + "\t\"é\"\n"
	for i := range n {
		uris = append(uris, fmt.Sprintf("file://%s/doc%04d.go", dir, i))
		text := fmt.Sprintf("// %d\n", i) + strings.Repeat(line, size/len(line))
		params, _ := json.Marshal(map[string]any{"textDocument": map[string]any{
			"uri": uris[i], "languageId": "go", "version": 1, "text": text}})
		body := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":%s}`, params)
		frames = fmt.Appendf(frames, "Content-Length: %d\r\n\r\n", len(body))
		frames = append(frames, body...)
	}
	return frames, uris
}

// BenchmarkDidOpen feeds 1,000 didOpen of 20 KB through the server's read
// loop over OS pipes, as an editor restoring its session does, and
// reports the documents handled a second: from the first frame written to
// the answer of a request sent after the last.
func BenchmarkDidOpen(b *testing.B) {
	const docs, size = 1000, 20_000
	srv, ed := pipePair(b)
	ctx, cancel := context.WithCancel(b.Context())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		Serve(ctx, srv, Options{NewAgent: func(cfg AgentConfig) (Agent, error) { return newFakeAgent(cfg), nil }})
	}()
	defer func() { ed.Close(); <-done }()
	c := newFrameClient(b, ed)
	dir := b.TempDir()
	c.call(b, 1, "initialize", fmt.Sprintf(`{"capabilities":{},"workspaceFolders":[{"uri":"file://%s","name":"ws"}]}`, dir))
	if err := lspframe.Write(c.w, []byte(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)); err != nil {
		b.Fatal(err)
	}
	frames, uris := didOpenFrames(dir, docs, size)
	var closes []byte
	for _, u := range uris {
		body := fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"textDocument/didClose","params":{"textDocument":{"uri":%q}}}`, u)
		closes = fmt.Appendf(closes, "Content-Length: %d\r\n\r\n%s", len(body), body)
	}
	id := int64(1)
	var elapsed, cpu time.Duration
	b.ResetTimer()
	for range b.N {
		start, cpu0 := time.Now(), processCPU()
		if _, err := c.w.Write(frames); err != nil {
			b.Fatal(err)
		}
		id++
		c.call(b, id, "agent-ls/test/sync", "null")
		elapsed += time.Since(start)
		cpu += processCPU() - cpu0
		b.StopTimer()
		if _, err := c.w.Write(closes); err != nil {
			b.Fatal(err)
		}
		id++
		c.call(b, id, "agent-ls/test/sync", "null")
		b.StartTimer()
	}
	b.ReportMetric(float64(docs*b.N)/elapsed.Seconds(), "docs/s")
	// The CPU time of server and client both: on a loaded machine the
	// rate falls, this much less.
	b.ReportMetric(float64(cpu.Microseconds())/float64(docs*b.N), "cpu-µs/doc")
}
