package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/agent-ls/agent-ls/internal/tools"
)

// serverModeVar makes the test binary an MCP server of ours (see
// runTestServer) instead of running the tests.
const serverModeVar = "AGENT_LS_MCP_TEST_SERVER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(serverModeVar); mode != "" {
		os.Exit(runTestServer(mode))
	}
	os.Exit(m.Run())
}

// runTestServer is a stdio MCP server (mcp-go's server package) that
// misbehaves on demand:
//
//   - "exit": writes to stderr and exits at startup;
//   - "hang": never answers;
//   - "legacy": speaks only the initialize handshake of an older
//     protocol and never answers a method it does not know (see
//     runLegacyServer);
//   - "resources": offers resources, two a page (resourceTestServer);
//   - "tools": offers echo (read-only), crash (exits the process),
//     add_tool (adds the tool late, which sends list_changed) and env.
func runTestServer(mode string) int {
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "starting test server")
		fmt.Fprintln(os.Stderr, "fatal: cannot open the database /nonexistent/db.sqlite")
		return 3
	case "hang":
		time.Sleep(time.Hour)
		return 0
	case "legacy":
		return runLegacyServer()
	}
	s := testServer()
	switch mode {
	case "hostile":
		s = hostileServer()
	case "resources":
		s = resourceTestServer()
	case "elicit":
		s = elicitServer()
	}
	if err := mcpserver.ServeStdio(s); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// testServer is the MCP server the stdio and HTTP tests talk to.
func testServer() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("agent-ls-test", "1.0.0", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echoes its text."), mcp.WithString("text", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText("echo: " + req.GetString("text", "")), nil
		})
	s.AddTool(mcp.NewTool("crash", mcp.WithDescription("Ends the server's process.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "crashing on purpose")
			os.Exit(2)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("add_tool", mcp.WithDescription("Adds the tool late.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(mcp.NewTool("late", mcp.WithDescription("Came late."), mcp.WithReadOnlyHintAnnotation(true)),
				func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
					return mcp.NewToolResultText("late tool here"), nil
				})
			return mcp.NewToolResultText("added"), nil
		})
	s.AddTool(mcp.NewTool("env", mcp.WithDescription("Returns an environment variable."), mcp.WithString("name", mcp.Required()),
		mcp.WithReadOnlyHintAnnotation(true)),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			v, ok := os.LookupEnv(req.GetString("name", ""))
			return mcp.NewToolResultText(fmt.Sprintf("%v %q", ok, v)), nil
		})
	s.AddTool(mcp.NewTool("image", mcp.WithDescription("Returns a tiny PNG."), mcp.WithReadOnlyHintAnnotation(true)),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultImage("a dot", tinyPNG, "image/png"), nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("Reports an error.")),
		func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("the database is locked"), nil
		})
	return s
}

// hostileServer offers what a careless or hostile server might: a schema
// that refers to itself without end, a name far too long in characters
// the APIs refuse, a description of a megabyte, a tool whose answer is
// ten megabytes, and one that floods the client with list_changed.
func hostileServer() *mcpserver.MCPServer {
	s := mcpserver.NewMCPServer("hostile", "1.0.0", mcpserver.WithToolCapabilities(true))
	text := func(t string) mcpserver.ToolHandlerFunc {
		return func(context.Context, mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(t), nil
		}
	}
	s.AddTool(mcp.NewToolWithRawSchema("loop", "Its schema refers to itself.",
		json.RawMessage(`{"type":"object","properties":{"x":{"$ref":"#/$defs/a"}},"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}}}`)), text("loop"))
	s.AddTool(mcp.NewTool(strings.Repeat("工具/", 40), mcp.WithDescription("A long name.")), text("long"))
	s.AddTool(mcp.NewTool("verbose", mcp.WithDescription(strings.Repeat("blah ", 200_000))), text("verbose"))
	s.AddTool(mcp.NewTool("huge", mcp.WithDescription("Answers at length.")), text(strings.Repeat("x", 10<<20)))
	s.AddTool(mcp.NewTool("flood", mcp.WithDescription("Sends list_changed many times.")),
		func(ctx context.Context, _ mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			for range 2000 {
				s.SendNotificationToAllClients(mcp.MethodNotificationToolsListChanged, nil)
			}
			return mcp.NewToolResultText("flooded"), nil
		})
	return s
}

// tinyPNG is a 1×1 PNG, base64.
const tinyPNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

// ourServer is the config of the test binary as a stdio server in mode.
func ourServer(t *testing.T, name, mode string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return ServerConfig{Name: name, Command: exe, Env: map[string]string{serverModeVar: mode}}
}

// npmDir holds the reference servers, installed from its lockfile.
const npmDir = "testdata/npm"

// npmServer is the config of a reference server from npm: bin is its
// command under node_modules/.bin. The test skips when node is missing,
// and fails when the packages are (make test installs them).
func npmServer(t *testing.T, name, bin string, args ...string) ServerConfig {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not installed: the reference MCP servers from npm cannot run")
	}
	path, err := filepath.Abs(filepath.Join(npmDir, "node_modules", ".bin", bin))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s is missing: run `make mcp-test-servers` (or `npm ci` in internal/mcp/%s)", path, npmDir)
	}
	return ServerConfig{Name: name, Command: path, Args: args, StartupTimeout: 60 * time.Second}
}

// failures records what Options.Failed is told.
type failures struct {
	mu   sync.Mutex
	msgs []string
}

func (f *failures) add(server string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.msgs = append(f.msgs, server+": "+err.Error())
}

func (f *failures) list() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.msgs)
}

// startSet starts a set of cfgs, waits for it and closes it at the end
// of the test.
func startSet(t *testing.T, cfgs ...ServerConfig) (*Set, *tools.Registry, *failures) {
	t.Helper()
	reg, err := tools.NewRegistry()
	if err != nil {
		t.Fatal(err)
	}
	f := &failures{}
	set, err := NewSet(cfgs, Options{Registry: reg, Failed: f.add, ClientVersion: "test"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(set.Close)
	set.Start()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	set.Ready(ctx)
	return set, reg, f
}

// approver decides tool calls as the agent would under a policy that
// lets everything run; it keeps the requests.
type approver struct {
	mu       sync.Mutex
	refuse   bool
	requests []tools.ToolRequest
}

func (a *approver) Exec(context.Context, tools.ExecRequest) (tools.ExecDecision, error) {
	return tools.ExecDecision{}, nil
}

func (a *approver) RetryUnsandboxed(context.Context, tools.ExecRequest, string) (tools.Decision, error) {
	return tools.Decision{}, nil
}

func (a *approver) Patch(context.Context, tools.PatchRequest) (tools.Decision, error) {
	return tools.Decision{}, nil
}

func (a *approver) Tool(_ context.Context, req tools.ToolRequest) (tools.Decision, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.requests = append(a.requests, req)
	if a.refuse && !req.ReadOnly {
		return tools.Decision{Reason: "refused by the test"}, nil
	}
	return tools.Decision{Allowed: true}, nil
}

// call calls the tool named name through the registry, as the runner
// does for the model's calls.
func call(t *testing.T, reg *tools.Registry, a tools.Approver, name string, args any) tools.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	if a == nil {
		a = &approver{}
	}
	env := &tools.Env{Cwd: t.TempDir(), Approver: a}
	c := &tools.Call{CallID: "c1", Name: name, Type: tools.Function, Arguments: raw}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	return reg.Run(ctx, env, []*tools.Call{c}, func(*tools.Call, tools.Handler, tools.Result) {})[0]
}

// statusOf returns the status of the server named name.
func statusOf(t *testing.T, set *Set, name string) Status {
	t.Helper()
	for _, st := range set.Status() {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no server %q in %+v", name, set.Status())
	return Status{}
}

func mustContain(t *testing.T, what, got string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(got, w) {
			t.Errorf("%s does not contain %q:\n%s", what, w, got)
		}
	}
}

// runLegacyServer is a stdio server of an older protocol (2025-06-18)
// that ignores requests it does not know instead of answering "method
// not found": it offers echo, and bad_image, whose
// answer is not valid MCP (an image whose data is not base64), on two
// pages of tools/list.
func runLegacyServer() int {
	in := bufio.NewScanner(os.Stdin)
	out := json.NewEncoder(os.Stdout)
	for in.Scan() {
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string         `json:"name"`
				Cursor    string         `json:"cursor"`
				Arguments map[string]any `json:"arguments"`
			} `json:"params"`
		}
		if err := json.Unmarshal(in.Bytes(), &req); err != nil {
			return 1
		}
		var result any
		switch req.Method {
		case "initialize":
			result = map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{"tools": map[string]any{}},
				"serverInfo": map[string]any{"name": "legacy", "version": "1.0.0"}}
		case "tools/list":
			// Two pages, or, when LEGACY_LOOP is set, pages without end.
			switch {
			case os.Getenv("LEGACY_LOOP") != "":
				result = map[string]any{"tools": []any{}, "nextCursor": "again"}
			case req.Params.Cursor == "":
				result = map[string]any{"tools": []any{map[string]any{"name": "echo", "description": "Echoes its text.",
					"inputSchema": map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}}},
					"nextCursor": "page 2"}
			default:
				result = map[string]any{"tools": []any{map[string]any{"name": "bad_image", "description": "Answers an image whose data is not base64.",
					"inputSchema": map[string]any{"type": "object"}}}}
			}
		case "tools/call":
			if req.Params.Name == "bad_image" {
				result = map[string]any{"content": []any{map[string]any{"type": "image", "mimeType": "image/png", "data": "not base64!"}}}
				break
			}
			result = map[string]any{"content": []any{map[string]any{"type": "text", "text": fmt.Sprint("legacy echo: ", req.Params.Arguments["text"])}}}
		default:
			continue
		}
		if err := out.Encode(map[string]any{"jsonrpc": "2.0", "id": req.ID, "result": result}); err != nil {
			return 1
		}
	}
	return 0
}
