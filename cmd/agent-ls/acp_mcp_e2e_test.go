package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
	mcpgo "github.com/mark3labs/mcp-go/mcp"
	mcpserver "github.com/mark3labs/mcp-go/server"

	"github.com/agent-ls/agent-ls/internal/model/fakemodel"
	"github.com/agent-ls/agent-ls/internal/proctest"
)

// everythingFor is the reference everything server as a client names it
// in session/new: run under marker (its argv[0]) so the test can find
// its process, with env the client gives it.
func everythingFor(everything, marker string, env ...sdk.EnvVariable) sdk.McpServer {
	return sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "everything", Command: "bash",
		Args: []string{"-c", "exec -a " + marker + " node " + everything + " stdio"}, Env: append([]sdk.EnvVariable{}, env...)}}
}

// TestACPClientMCPServers: the MCP servers a client names in session/new
// are that session's: its first model request offers their tools,
// another session's does not; a call that needs approval asks the client
// and goes through; the server sees the env the client gave and none of
// ours; a server that fails is told in the session; session/close stops
// the servers, session/load without servers leaves it with none,
// session/resume starts those it names again, and the end of the
// connection stops what runs.
func TestACPClientMCPServers(t *testing.T) {
	everything := everythingServer(t)
	first, again, last := proctest.Marker(), proctest.Marker(), proctest.Marker()
	m := fakemodel.New(
		fakemodel.Answer(fakemodel.FunctionCall("c1", "everything__get-env", `{}`),
			fakemodel.FunctionCall("c2", "everything__toggle-simulated-logging", `{}`)),
		fakemodel.Say("done"),
		fakemodel.Say("no servers here"),
		fakemodel.Say("loaded without servers"),
		fakemodel.Say("back again"),
		fakemodel.Say("up"),
	)
	t.Cleanup(m.Close)
	dir := t.TempDir()
	c := &acpClient{answer: pick("allow_once")}
	r := startACP(t, m, dir, t.TempDir(), c, "AGENT_LS_E2E_SECRET=hunter2")
	r.initialize(false)

	broken := sdk.McpServer{Stdio: &sdk.McpServerStdio{Name: "broken", Command: "sh", Args: []string{"-c", "echo 'fatal: no database' >&2; exit 3"}, Env: []sdk.EnvVariable{}}}
	res, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{
		everythingFor(everything, first, sdk.EnvVariable{Name: "GIVEN_BY_CLIENT", Value: "yes-given"}), broken}})
	if err != nil {
		t.Fatal(err)
	}
	a := string(res.SessionId)
	b := r.newSession()
	if pr, err := r.prompt(a, "use the tools"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	reqs := m.Requests()
	names := requestTools(t, reqs[0])
	for _, want := range []string{"everything__echo", "everything__get-env", "everything__toggle-simulated-logging", "exec_command"} {
		if !slices.Contains(names, want) {
			t.Errorf("the session's first request does not offer %s: %q", want, names)
		}
	}
	if !slices.IsSorted(names) || slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "broken__") }) {
		t.Errorf("tools %q", names)
	}
	c.mu.Lock()
	perms := c.perms
	c.mu.Unlock()
	if len(perms) != 1 || perms[0].ToolCall.ToolCallId != "c2" {
		t.Fatalf("permission requests %+v (get-env is read-only, toggle asks)", perms)
	}
	updates := strings.Join(c.rawUpdates(), "\n")
	if !strings.Contains(updates, "yes-given") {
		t.Errorf("the server did not get the client's env (get-env shows no GIVEN_BY_CLIENT):\n%s", updates)
	}
	for _, secret := range []string{"OPENAI_API_KEY", "AGENT_LS_E2E_SECRET", "hunter2"} {
		if strings.Contains(updates, secret) {
			t.Errorf("the client's MCP server sees %s", secret)
		}
	}
	if strings.Contains(updates, "refused") {
		t.Errorf("a call was refused:\n%s", updates)
	}
	if text := c.agentText(); !strings.Contains(text, "MCP server broken: the server exited at startup") {
		t.Errorf("the failed server is not told in the session: %q", text)
	}

	if pr, err := r.prompt(b, "anything?"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt in the other session: %+v %v", pr, err)
	}
	if names := requestTools(t, m.Requests()[2]); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "everything__") }) {
		t.Errorf("another session is offered the session's MCP tools: %q", names)
	}

	if len(proctest.Find(first)) == 0 {
		t.Fatal("the session's server is not running before session/close")
	}
	if _, err := r.conn.CloseSession(r.ctx, sdk.CloseSessionRequest{SessionId: res.SessionId}); err != nil {
		t.Fatal(err)
	}
	proctest.Gone(t, first)

	// session/load without servers: the session has none any more.
	if _, err := r.conn.LoadSession(r.ctx, sdk.LoadSessionRequest{SessionId: res.SessionId, Cwd: dir, McpServers: []sdk.McpServer{}}); err != nil {
		t.Fatal(err)
	}
	if pr, err := r.prompt(a, "still there?"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after load: %+v %v", pr, err)
	}
	if names := requestTools(t, m.Requests()[3]); slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "everything__") }) {
		t.Errorf("a session loaded without servers is offered the tools of those it had: %q", names)
	}

	// session/resume names the servers again: they start for it.
	if _, err := r.conn.ResumeSession(r.ctx, sdk.ResumeSessionRequest{SessionId: res.SessionId, Cwd: dir,
		McpServers: []sdk.McpServer{everythingFor(everything, again)}}); err != nil {
		t.Fatal(err)
	}
	if pr, err := r.prompt(a, "again"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt after resume: %+v %v", pr, err)
	}
	if names := requestTools(t, m.Requests()[4]); !slices.Contains(names, "everything__echo") {
		t.Errorf("the resumed session is not offered its servers' tools: %q", names)
	}

	// The end of the connection stops the servers of the sessions open.
	res2, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{everythingFor(everything, last)}})
	if err != nil {
		t.Fatal(err)
	}
	if pr, err := r.prompt(string(res2.SessionId), "up?"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	if len(proctest.Find(last)) == 0 || len(proctest.Find(again)) == 0 {
		t.Fatal("the servers are not running before the connection ends")
	}
	r.stdin.Close()
	proctest.Gone(t, again)
	proctest.Gone(t, last)
}

// TestACPConfiguredMCPServers: the configured servers serve ACP sessions
// too; one that fails to start is told in the session and logged, and a
// client's server named like a configured one is left out, saying so.
func TestACPConfiguredMCPServers(t *testing.T) {
	env := writeConfig(t, `[mcp_servers.broken]
command = "sh"
args = ["-c", "echo 'fatal: cannot open /nonexistent/db' >&2; exit 3"]
`)
	m := fakemodel.New(fakemodel.Say("hello"))
	t.Cleanup(m.Close)
	dir := t.TempDir()
	c := &acpClient{}
	r := startACP(t, m, dir, t.TempDir(), c, env)
	r.initialize(false)
	res, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "broken", Command: "sh", Args: []string{"-c", "exit 0"}, Env: []sdk.EnvVariable{}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if pr, err := r.prompt(string(res.SessionId), "hi"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	text := c.agentText()
	for _, want := range []string{"agent-ls: MCP server broken: the server exited at startup", "the configuration has an MCP server of that name"} {
		if !strings.Contains(text, want) {
			t.Errorf("the session was not told %q:\n%s", want, text)
		}
	}
	if !strings.Contains(r.log.String(), "MCP server broken: the server exited at startup") {
		t.Errorf("the configured server's failure is not logged:\n%s", r.log.String())
	}
}

// TestACPClientHTTPMCPServer: an http server a client names (announced
// by mcpCapabilities.http) gets the client's headers with every request,
// and its tools serve the session: a read-only one runs without asking.
func TestACPClientHTTPMCPServer(t *testing.T) {
	s := mcpserver.NewMCPServer("http-test", "1.0.0", mcpserver.WithToolCapabilities(true))
	s.AddTool(mcpgo.NewTool("shout", mcpgo.WithDescription("Shouts the text."), mcpgo.WithString("text", mcpgo.Required()), mcpgo.WithReadOnlyHintAnnotation(true)),
		func(_ context.Context, req mcpgo.CallToolRequest) (*mcpgo.CallToolResult, error) {
			return mcpgo.NewToolResultText(strings.ToUpper(req.GetString("text", "")) + "!"), nil
		})
	h := mcpserver.NewStreamableHTTPServer(s)
	var refused atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Client-Token") != "tok-7" {
			refused.Add(1)
			http.Error(w, "unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)

	m := fakemodel.New(fakemodel.Answer(fakemodel.FunctionCall("c1", "remote__shout", `{"text":"hello over http"}`)), fakemodel.Say("done"))
	t.Cleanup(m.Close)
	dir := t.TempDir()
	c := &acpClient{}
	r := startACP(t, m, dir, t.TempDir(), c)
	if init := r.initialize(false); !init.AgentCapabilities.McpCapabilities.Http {
		t.Fatalf("mcpCapabilities %+v", init.AgentCapabilities.McpCapabilities)
	}
	res, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{{Http: &sdk.McpServerHttpInline{
		Type: "http", Name: "remote", Url: srv.URL + "/mcp", Headers: []sdk.HttpHeader{{Name: "X-Client-Token", Value: "tok-7"}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if pr, err := r.prompt(string(res.SessionId), "shout"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	if names := requestTools(t, m.Requests()[0]); !slices.Contains(names, "remote__shout") {
		t.Errorf("the first request does not offer remote__shout: %q", names)
	}
	if updates := strings.Join(c.rawUpdates(), "\n"); !strings.Contains(updates, "HELLO OVER HTTP!") {
		t.Errorf("the call's result is not in the tool call:\n%s", updates)
	}
	if n := refused.Load(); n != 0 {
		t.Errorf("%d requests came without the client's header", n)
	}
}

// TestACPClientMCPServerDiesWithAgentLs: a client's stdio server does not
// outlive agent-ls even when agent-ls is killed and cleans nothing up.
func TestACPClientMCPServerDiesWithAgentLs(t *testing.T) {
	everything := everythingServer(t)
	marker := proctest.Marker()
	m := fakemodel.New(fakemodel.Say("up"))
	t.Cleanup(m.Close)
	dir := t.TempDir()
	r := startACP(t, m, dir, t.TempDir(), &acpClient{})
	r.initialize(false)
	res, err := r.conn.NewSession(r.ctx, sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{everythingFor(everything, marker)}})
	if err != nil {
		t.Fatal(err)
	}
	if pr, err := r.prompt(string(res.SessionId), "up?"); err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %+v %v", pr, err)
	}
	if len(proctest.Find(marker)) == 0 {
		t.Fatal("the server is not running")
	}
	if err := r.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	proctest.Gone(t, marker)
}
