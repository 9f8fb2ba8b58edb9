package mcp

//lint:file-ignore SA1019 roots and logging are deprecated from MCP 2026-07-28 on; agent-ls speaks 2025-11-25, where they are current.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// The client surface beyond tools: roots, progress, logging,
// cancellation, structured results, pages. The servers are the reference
// server from npm where it has the feature, the official Go SDK's
// otherwise (on loopback HTTP, or in memory).

// sdkHTTPServer serves srv over streamable HTTP on loopback.
func sdkHTTPServer(t *testing.T, name string, srv *sdk.Server) ServerConfig {
	t.Helper()
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)
	return ServerConfig{Name: name, URL: ts.URL, Transport: TransportStreamableHTTP}
}

// sdkTool adds a raw tool to srv.
func sdkTool(srv *sdk.Server, name string, output any, h sdk.ToolHandler) {
	srv.AddTool(&sdk.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, OutputSchema: output,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}}, h)
}

// progressLog keeps the progress events a call emits, and when.
type progressLog struct {
	mu     sync.Mutex
	events []event.ToolProgress
	times  []time.Time
}

func (p *progressLog) emit(e event.Payload) {
	if tp, ok := e.(event.ToolProgress); ok {
		p.mu.Lock()
		defer p.mu.Unlock()
		p.events = append(p.events, tp)
		p.times = append(p.times, time.Now())
	}
}

func (p *progressLog) list() []event.ToolProgress {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.events)
}

// runCall runs one call of the tool named name with env, as the runner
// does.
func runCall(ctx context.Context, reg *tools.Registry, env *tools.Env, name string, args string) tools.Result {
	c := &tools.Call{CallID: "c1", Name: name, Type: tools.Function, Arguments: json.RawMessage(args)}
	return reg.Run(ctx, env, []*tools.Call{c}, func(*tools.Call, tools.Handler, tools.Result) {})[0]
}

// TestEverythingRoots: the reference server asks for the roots, which
// are the set's, and asks again after roots/list_changed; agent-ls does
// not offer sampling, so the server's sampling tools stay away.
func TestEverythingRoots(t *testing.T) {
	cfg := npmOrSkipEverything(t)
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	set, err := NewSet([]ServerConfig{cfg}, Options{Registry: reg, ClientVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	one, two := filepath.Join(t.TempDir(), "one project"), filepath.Join(t.TempDir(), "two")
	set.SetRoots(RootsOf(one))
	set.Start()
	// The server registers get-roots-list once it knows the client offers
	// roots, and says so with list_changed.
	waitFor(t, set, func() bool { _, ok := reg.Lookup("everything__get-roots-list"); return ok })
	if st := statusOf(t, set, "everything"); slices.ContainsFunc(st.Tools, func(s string) bool { return strings.Contains(s, "sampling") }) {
		t.Errorf("sampling tools offered though agent-ls does not offer sampling: %q", st.Tools)
	}
	r := call(t, reg, nil, "everything__get-roots-list", map[string]any{})
	mustContain(t, "roots", r.Output.Text, "file://"+filepath.ToSlash(strings.ReplaceAll(one, " ", "%20")), "one project")

	set.SetRoots(RootsOf(one, two))
	deadline := time.Now().Add(30 * time.Second)
	for {
		r = call(t, reg, nil, "everything__get-roots-list", map[string]any{})
		if strings.Contains(r.Output.Text, "file://"+filepath.ToSlash(two)) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the changed roots did not reach the server:\n%s", r.Output.Text)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestRootsListChanged: roots/list answers the set's roots as they are;
// a change sends roots/list_changed, the same roots again do not.
func TestRootsListChanged(t *testing.T) {
	changed := make(chan struct{}, 10)
	srv := sdk.NewServer(&sdk.Implementation{Name: "roots", Version: "1"}, &sdk.ServerOptions{
		RootsListChangedHandler: func(context.Context, *sdk.RootsListChangedRequest) { changed <- struct{}{} },
	})
	roots := &rootsState{}
	a := t.TempDir()
	roots.set(RootsOf(a, a, "relative"))
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(testCtx(t), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	c, err := connectClient(testCtx(t), ct, "test", &floodLog{log: slog.New(slog.DiscardHandler)}, clientHooks{roots: roots})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	list := func() []string {
		res, err := ss.ListRoots(testCtx(t), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Roots {
			out = append(out, r.URI+" "+r.Name)
		}
		return out
	}
	if got := list(); len(got) != 1 || got[0] != "file://"+filepath.ToSlash(a)+" "+filepath.Base(a) {
		t.Fatalf("roots %q", got)
	}
	b := t.TempDir()
	roots.set(RootsOf(b))
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("no roots/list_changed")
	}
	waitUntil(t, func() bool { got := list(); return len(got) == 1 && strings.Contains(got[0], filepath.ToSlash(b)) })
	// The change is told twice: b added, then a removed.
	time.Sleep(200 * time.Millisecond)
	for len(changed) > 0 {
		<-changed
	}
	roots.set(RootsOf(b))
	time.Sleep(200 * time.Millisecond)
	if len(changed) > 0 {
		t.Error("roots/list_changed without a change")
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestEverythingProgress: the reference server's long-running operation
// reports its steps to the call that asked, as toolProgress events, and
// none comes after the call.
func TestEverythingProgress(t *testing.T) {
	set, reg, _ := startSet(t, npmOrSkipEverything(t))
	_ = set
	var got progressLog
	env := &tools.Env{Approver: &approver{}, Emit: got.emit}
	r := runCall(testCtx(t), reg, env, "everything__trigger-long-running-operation", `{"duration": 1.2, "steps": 4}`)
	if r.Output.Failed {
		t.Fatalf("call: %+v", r.Output)
	}
	evs := got.list()
	if len(evs) == 0 {
		t.Fatal("no progress")
	}
	for _, e := range evs {
		if e.CallID != "c1" || e.Total != 4 || e.Progress < 1 || e.Progress > 4 {
			t.Errorf("progress %+v", e)
		}
	}
	time.Sleep(400 * time.Millisecond)
	if n := len(got.list()); n != len(evs) {
		t.Errorf("%d progress events after the call", n-len(evs))
	}
}

// TestProgressFlood: a server that floods progress costs the editor a
// few events (four a second at most), each visible-safe.
func TestProgressFlood(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "flood", Version: "1"}, nil)
	sdkTool(srv, "flood", nil, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		token := req.Params.GetProgressToken()
		if token == nil {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "no token"}}}, nil
		}
		start := time.Now()
		for i := 1; time.Since(start) < 600*time.Millisecond; i++ {
			_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: token, Progress: float64(i),
				Message: "step \x1b[31mred\x1b[0m\n" + strings.Repeat("x", 1000)})
		}
		// A token the call does not hold is dropped.
		_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{ProgressToken: "someone-else", Progress: 1})
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "flooded"}}}, nil
	})
	_, reg, _ := startSet(t, sdkHTTPServer(t, "flood", srv))
	var got progressLog
	env := &tools.Env{Approver: &approver{}, Emit: got.emit}
	start := time.Now()
	r := runCall(testCtx(t), reg, env, "flood__flood", `{}`)
	took := time.Since(start)
	if r.Output.Text != "flooded" {
		t.Fatalf("call: %+v", r.Output)
	}
	evs := got.list()
	if max := int(took/progressInterval) + 2; len(evs) == 0 || len(evs) > max {
		t.Errorf("%d progress events in %s (at most %d)", len(evs), took, max)
	}
	for _, e := range evs {
		if strings.ContainsAny(e.Message, "\x1b\n") || len(e.Message) > maxProgressMessage+10 || !strings.HasPrefix(e.Message, "step ") {
			t.Errorf("message %q", e.Message)
		}
	}
}

// TestServerLogging: the server's log messages go to agent-ls's log, at
// the level asked (warning by default, or log_level), never to the
// model.
func TestServerLogging(t *testing.T) {
	for _, c := range []struct {
		level       string
		want, never []string
	}{
		{"", []string{"a warning", "an error"}, []string{"debugging", "for information"}},
		{"debug", []string{"debugging", "for information", "a warning", "an error"}, nil},
	} {
		t.Run("level="+c.level, func(t *testing.T) {
			srv := sdk.NewServer(&sdk.Implementation{Name: "logs", Version: "1"}, nil)
			sdkTool(srv, "talk", nil, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
				for _, m := range []struct {
					level sdk.LoggingLevel
					data  any
				}{{"debug", "debugging"}, {"info", "for information"}, {"warning", "a warning"}, {"error", map[string]any{"what": "an error"}}} {
					_ = req.Session.Log(ctx, &sdk.LoggingMessageParams{Level: m.level, Logger: "db", Data: m.data})
				}
				return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "talked"}}}, nil
			})
			cfg := sdkHTTPServer(t, "logs", srv)
			cfg.LogLevel = c.level
			var buf lockedBuffer
			reg, err := tools.NewRegistry()
			if err != nil {
				t.Fatal(err)
			}
			set, err := NewSet([]ServerConfig{cfg}, Options{Registry: reg, Logger: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(set.Close)
			set.Start()
			set.Ready(testCtx(t))
			r := call(t, reg, nil, "logs__talk", map[string]any{})
			if r.Output.Text != "talked" {
				t.Fatalf("the model got %q", r.Output.Text)
			}
			waitUntil(t, func() bool { return strings.Contains(buf.String(), "an error") })
			log := buf.String()
			for _, w := range c.want {
				if !strings.Contains(log, w) {
					t.Errorf("%q not logged:\n%s", w, log)
				}
			}
			for _, n := range c.never {
				if strings.Contains(log, n) {
					t.Errorf("%q logged:\n%s", n, log)
				}
			}
			mustContain(t, "log", log, `msg="MCP server log message"`, "mcp_server=logs", "logger=db", `level=WARN msg="MCP server log message" mcp_server=logs mcp_level=warning data="a warning"`)
		})
	}
}

// TestLogMessageBounds: a message below the level asked is left out
// even when the server sends it; data is one line, cut.
func TestLogMessageBounds(t *testing.T) {
	var buf bytes.Buffer
	fl := &floodLog{log: slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	logMessage(fl, "error", &sdk.LoggingMessageParams{Level: "info", Data: "ignored the level"})
	logMessage(fl, "error", &sdk.LoggingMessageParams{Level: "critical", Data: "line\n\x1b[2J" + strings.Repeat("y", 10000)})
	out := buf.String()
	if strings.Contains(out, "ignored the level") || strings.Count(out, "\n") != 1 || strings.Contains(out, "\x1b") {
		t.Errorf("log:\n%q", out)
	}
	if len(out) > maxLogData+500 || !strings.Contains(out, "level=ERROR") {
		t.Errorf("log of %d bytes: %.300q", len(out), out)
	}
	cfg := ServerConfig{Name: "x", Command: "x", LogLevel: "verbose"}
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), `log_level "verbose" is not an MCP log level (use one of debug, info, notice, warning, error, critical, alert, emergency)`) {
		t.Errorf("validate: %v", err)
	}
}

// TestCancelReachesServer: an interrupted call ends at once, and the
// server's handler sees its request cancelled (notifications/cancelled).
func TestCancelReachesServer(t *testing.T) {
	started, cancelled := make(chan struct{}), make(chan struct{})
	srv := sdk.NewServer(&sdk.Implementation{Name: "slow", Version: "1"}, nil)
	sdkTool(srv, "wait", nil, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		close(started)
		select {
		case <-ctx.Done():
			close(cancelled)
		case <-time.After(time.Minute):
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "waited"}}}, nil
	})
	_, reg, _ := startSet(t, sdkHTTPServer(t, "slow", srv))
	ctx, cancel := context.WithCancel(testCtx(t))
	done := make(chan tools.Result, 1)
	go func() { done <- runCall(ctx, reg, &tools.Env{Approver: &approver{}}, "slow__wait", `{}`) }()
	<-started
	cancel()
	select {
	case r := <-done:
		if !r.Aborted {
			t.Errorf("result %+v", r)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("the call did not end when its turn was interrupted")
	}
	select {
	case <-cancelled:
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not see the cancellation")
	}
}

// TestEverythingStructured: the reference server's structured result,
// which keeps its output schema and carries its JSON as text, reaches
// the model as the text.
func TestEverythingStructured(t *testing.T) {
	_, reg, _ := startSet(t, npmOrSkipEverything(t))
	r := call(t, reg, nil, "everything__get-structured-content", map[string]any{"location": "Chicago"})
	if r.Output.Failed || r.Output.Text != `{"temperature":36,"conditions":"Light rain / drizzle","humidity":82}` {
		t.Errorf("output %+v", r.Output)
	}
}

// TestStructuredContent: structuredContent is checked against the
// tool's output schema; without a text block the model gets its JSON.
func TestStructuredContent(t *testing.T) {
	schema := map[string]any{"type": "object", "properties": map[string]any{"n": map[string]any{"type": "integer"}}, "required": []any{"n"}}
	srv := sdk.NewServer(&sdk.Implementation{Name: "st", Version: "1"}, nil)
	result := func(structured any, text string, isError bool) sdk.ToolHandler {
		return func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res := &sdk.CallToolResult{StructuredContent: structured, IsError: isError}
			if text != "" {
				res.Content = []sdk.Content{&sdk.TextContent{Text: text}}
			}
			return res, nil
		}
	}
	sdkTool(srv, "only_structured", schema, result(map[string]any{"n": 7}, "", false))
	sdkTool(srv, "both", schema, result(map[string]any{"n": 7}, "seven", false))
	sdkTool(srv, "wrong", schema, result(map[string]any{"n": "seven"}, `{"n":"seven"}`, false))
	sdkTool(srv, "missing", schema, result(nil, "no structure", false))
	sdkTool(srv, "failed", schema, result(nil, "it broke", true))
	sdkTool(srv, "no_schema", nil, result(map[string]any{"free": true}, "", false))
	_, reg, _ := startSet(t, sdkHTTPServer(t, "st", srv))
	for _, c := range []struct {
		tool   string
		failed bool
		want   string
	}{
		{"only_structured", false, `{"n":7}`},
		{"both", false, "seven"},
		{"wrong", true, "MCP server st: the result of wrong is not valid: its structuredContent does not match the tool's output schema:\n- at /n (field `n`): got string, want integer; got \"seven\""},
		{"missing", true, "the tool declares an output schema, but its result has no structuredContent"},
		{"failed", true, "it broke"},
		{"no_schema", false, `{"free":true}`},
	} {
		r := call(t, reg, nil, "st__"+c.tool, map[string]any{})
		if r.Output.Failed != c.failed || !strings.Contains(r.Output.Text, c.want) {
			t.Errorf("%s: %+v, want failed %v and %q", c.tool, r.Output, c.failed, c.want)
		}
	}
}

// TestResourcesListChanged: notifications/resources/list_changed reaches
// the connection's hook.
func TestResourcesListChanged(t *testing.T) {
	srv := sdk.NewServer(&sdk.Implementation{Name: "res", Version: "1"}, nil)
	read := func(context.Context, *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
		return &sdk.ReadResourceResult{}, nil
	}
	srv.AddResource(&sdk.Resource{URI: "test://a", Name: "a"}, read)
	ct, st := sdk.NewInMemoryTransports()
	ss, err := srv.Connect(testCtx(t), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	changed := make(chan struct{}, 10)
	c, err := connectClient(testCtx(t), ct, "test", &floodLog{log: slog.New(slog.DiscardHandler)},
		clientHooks{resourcesChanged: func() { changed <- struct{}{} }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.close)
	srv.AddResource(&sdk.Resource{URI: "test://b", Name: "b"}, read)
	select {
	case <-changed:
	case <-time.After(10 * time.Second):
		t.Fatal("resources/list_changed did not arrive")
	}
}

// TestCollectPages: pages are followed up to the limit, a page that
// would pass it is left for the next listing, a cursor that comes back
// is an error, and pages without end stop at maxPages.
func TestCollectPages(t *testing.T) {
	pages := map[string]struct {
		items []int
		next  string
	}{"": {[]int{1, 2}, "b"}, "b": {[]int{3, 4}, "c"}, "c": {[]int{5, 6, 7}, "d"}, "d": {[]int{8}, ""}}
	page := func(_ context.Context, cursor string) ([]int, string, error) {
		p := pages[cursor]
		return p.items, p.next, nil
	}
	ctx := context.Background()
	if got, next, err := collectPages(ctx, "", 100, page); err != nil || next != "" || len(got) != 8 {
		t.Errorf("all: %v %q %v", got, next, err)
	}
	if got, next, err := collectPages(ctx, "", 5, page); err != nil || next != "c" || fmt.Sprint(got) != "[1 2 3 4]" {
		t.Errorf("limit 5: %v %q %v", got, next, err)
	}
	if got, next, err := collectPages(ctx, "c", 1, page); err != nil || next != "d" || fmt.Sprint(got) != "[5 6 7]" {
		t.Errorf("a first page past the limit: %v %q %v", got, next, err)
	}
	loop := func(_ context.Context, cursor string) ([]int, string, error) {
		return nil, map[string]string{"": "x", "x": "y", "y": "x"}[cursor], nil
	}
	if _, _, err := collectPages(ctx, "", 100, loop); err == nil || !strings.Contains(err.Error(), `the cursor "x" came back`) {
		t.Errorf("loop: %v", err)
	}
	n := 0
	endless := func(_ context.Context, cursor string) ([]int, string, error) {
		n++
		return nil, fmt.Sprint(n), nil
	}
	if got, next, err := collectPages(ctx, "", 100, endless); err != nil || len(got) != 0 || next == "" || n != maxPages {
		t.Errorf("endless: %v %q %v after %d pages", got, next, err, n)
	}
}
