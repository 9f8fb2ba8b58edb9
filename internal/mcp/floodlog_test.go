package mcp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// lockedBuffer is a log destination the client's goroutines share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestServerFloodLogIsBounded: a server that floods log notifications,
// malformed messages and requests during a tools/call, and again between
// calls, leaves at most about maxServerLog of log per window, then one
// line saying how much was dropped.
func TestServerFloodLogIsBounded(t *testing.T) {
	var logs lockedBuffer
	c, srv, _ := stdioClientLog(t, 0, slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})))
	serverOut := srv.out

	payload := strings.Repeat("x", 300)
	flood := func() {
		w := bufio.NewWriter(serverOut)
		for i := range 6000 {
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":%q}}`+"\n", payload)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","method":"notifications/%s%d"}`+"\n", payload[:90], i)
			fmt.Fprintf(w, "not json %s %d\n", payload, i)
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":"x%d","result":{}}`+"\n", i)
		}
		if err := w.Flush(); err != nil {
			t.Error(err)
		}
	}
	done := make(chan error, 1)
	go func() {
		_, err := c.callTool(testCtx(t), "slow", json.RawMessage(`{}`))
		done <- err
	}()
	call := srv.read()
	flood()
	srv.answer(call, `{"content":[]}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	during := logs.String()
	// Between calls: the flood goes on; the next call's start closes
	// that window.
	flood()
	go func() {
		_, err := c.callTool(testCtx(t), "quick", json.RawMessage(`{}`))
		done <- err
	}()
	srv.answer(srv.read(), `{"content":[]}`)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	all := logs.String()
	between := all[len(during):]
	for _, w := range []struct {
		name, log, says string
	}{
		{"during the call", during, "during the call of slow were dropped"},
		{"between calls", between, "between tool calls were dropped"},
	} {
		if len(w.log) > maxServerLog*11/10 {
			t.Errorf("%s: %d bytes of log, over about %d", w.name, len(w.log), maxServerLog)
		}
		t.Logf("%s: %d bytes of log", w.name, len(w.log))
		if n := strings.Count(w.log, w.says); n != 1 {
			t.Errorf("%s: %d lines saying what was dropped, want 1; the log ends %q", w.name, n, w.log[max(0, len(w.log)-500):])
		}
	}
}
