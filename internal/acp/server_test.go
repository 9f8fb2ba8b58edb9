package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// fakeAgent stands in for the manager: sessions are named, and a
// compaction reports through the frontend like the agent's does.
type fakeAgent struct {
	fe       agent.Frontend
	compacts int

	mu        sync.Mutex
	sessions  int         // NewSession calls, which name sessions s-1, s-2, ...
	forgotten []string    // the ids Forget was given
	mcp       []MCPServer // the servers MCPServers was given
	mcpCwd    string
	tools     agent.SessionTools // what NewSession was given
	folders   []string           // the folders NewSession was given
	servers   *fakeServers
	prompts   []agent.Prompt // what Prompts answers
	terminals []agent.TerminalInfo
	rewinds   []string              // the turns Rewind was given
	resumed   *agent.ResumedSession // what ResumeSession answers, when set
}

// fakeServers stand in for a session's MCP servers.
type fakeServers struct {
	mu     sync.Mutex
	closed int
}

func (f *fakeServers) Start()                    {}
func (f *fakeServers) Ready(context.Context)     {}
func (f *fakeServers) Snapshot() *tools.Snapshot { r, _ := tools.NewRegistry(); return r.Snapshot() }
func (f *fakeServers) Close()                    { f.mu.Lock(); f.closed++; f.mu.Unlock() }

// MCPServers takes the servers and says the one named "broken" fails.
func (f *fakeAgent) MCPServers(cwd string, servers []MCPServer, failed func(string, error)) SessionServers {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.mcp, f.mcpCwd = servers, cwd
	for _, s := range servers {
		if s.Name == "broken" {
			failed(s.Name, errors.New("the server exited at startup"))
		}
	}
	f.servers = &fakeServers{}
	return f.servers
}

func (f *fakeAgent) NewSession(o agent.SessionOptions) (agent.SessionInfo, error) {
	f.mu.Lock()
	f.tools, f.folders = o.Tools, o.Folders
	f.sessions++
	id := fmt.Sprintf("s-%d", f.sessions)
	f.mu.Unlock()
	return agent.SessionInfo{SessionID: id, Cwd: o.Cwd, Model: "m", ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite}, nil
}
func (f *fakeAgent) StartTurn(string, agent.TurnInput) (*agent.Turn, error) {
	return nil, errors.New("no turns here")
}
func (f *fakeAgent) Interrupt(string, string) error { return nil }
func (f *fakeAgent) Prompts(string) ([]agent.Prompt, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.prompts), nil
}
func (f *fakeAgent) UndoTurn(context.Context, string, string) ([]string, error) {
	return nil, nil
}
func (f *fakeAgent) UpdateSession(string, func(*agent.SessionOptions)) (agent.SessionInfo, error) {
	return agent.SessionInfo{}, errors.New("fixed")
}
func (f *fakeAgent) ListSessions(string) ([]agent.SessionSummary, error) { return nil, nil }
func (f *fakeAgent) ResumeSession(context.Context, string) (*agent.ResumedSession, error) {
	if f.resumed != nil {
		return f.resumed, nil
	}
	return nil, agent.ErrUnknownSession
}
func (f *fakeAgent) Rewind(_ context.Context, _, turnID, _ string) (agent.RewindResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.rewinds = append(f.rewinds, turnID)
	return agent.RewindResult{Rewound: []string{"s-1-t2", "s-1-t3"}, Files: []string{"/w/a.txt"},
		Conflicts: []agent.RewindIssue{{Path: "/w/b.txt", Reason: "changed since turn s-1-t2 where that turn changed it"}}}, nil
}
func (f *fakeAgent) Close() {}
func (f *fakeAgent) Forget(id string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.forgotten = append(f.forgotten, id)
	return nil
}
func (f *fakeAgent) Compact(id string) (*agent.Turn, error) {
	f.compacts++
	done := make(chan struct{})
	res := &agent.TurnResult{Status: event.StatusCompleted}
	go func() {
		f.fe.Event(event.Event{SessionID: id, TurnID: id + "-t1", Seq: 1, Payload: event.Compacted{Summary: "sum", TokensBefore: 9000, TokensAfter: 800}})
		close(done)
	}()
	return agent.NewTurn(id+"-t1", done, res), nil
}

// recorder is a client that keeps the updates.
type recorder struct {
	mu      sync.Mutex
	updates []sdk.SessionUpdate
}

func (r *recorder) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.updates = append(r.updates, n.Update)
	return nil
}
func (r *recorder) RequestPermission(context.Context, sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	return sdk.RequestPermissionResponse{}, errors.New("no")
}
func (r *recorder) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("no")
}
func (r *recorder) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("no")
}
func (r *recorder) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("no")
}
func (r *recorder) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("no")
}
func (r *recorder) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("no")
}
func (r *recorder) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("no")
}
func (r *recorder) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("no")
}

// serve runs the server in-process with opts over pipes and returns a
// client connected to it.
func serve(t *testing.T, opts Options) (*sdk.ClientSideConnection, *recorder, context.Context) {
	t.Helper()
	ctx, fromClient, toClient := servePipes(t, opts)
	rec := &recorder{}
	conn := sdk.NewClientSideConnection(rec, fromClient, toClient)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	return conn, rec, ctx
}

// servePipes runs the server in-process over pipes and returns the
// client's ends: what it writes to the server and what it reads from it.
// The server stops with the test.
func servePipes(t *testing.T, opts Options) (context.Context, io.WriteCloser, io.Reader) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	toAgent, fromClient := io.Pipe()
	toClient, fromAgent := io.Pipe()
	done := make(chan struct{})
	go func() {
		Serve(ctx, toAgent, fromAgent, opts)
		fromAgent.Close()
		close(done)
	}()
	t.Cleanup(func() {
		fromClient.Close()
		cancel()
		<-done
	})
	return ctx, fromClient, toClient
}

func TestCompactCommand(t *testing.T) {
	for _, offered := range []bool{false, true} {
		fa := &fakeAgent{}
		conn, rec, ctx := serve(t, Options{Compact: offered, NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
		if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
			t.Fatal(err)
		}
		res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{}})
		if err != nil {
			t.Fatal(err)
		}
		pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/compact")}})
		if !offered {
			// Not a command here: a prompt like any other.
			if err == nil || !strings.Contains(err.Error(), "no turns here") || fa.compacts != 0 {
				t.Errorf("/compact not offered: %+v %v, %d compactions", pr, err, fa.compacts)
			}
			continue
		}
		if err != nil || pr.StopReason != sdk.StopReasonEndTurn || fa.compacts != 1 {
			t.Fatalf("/compact: %+v %v, %d compactions", pr, err, fa.compacts)
		}
		rec.mu.Lock()
		var text, names string
		for _, u := range rec.updates {
			if u.AgentMessageChunk != nil {
				text += u.AgentMessageChunk.Content.Text.Text
			}
			if u.AvailableCommandsUpdate != nil {
				for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
					names += "/" + c.Name
				}
			}
		}
		rec.mu.Unlock()
		if !strings.Contains(text, "about 9000 tokens before, 800 after") || names != "/undo/rewind/new/approve/steer/compact/terminals/kill" {
			t.Errorf("compaction told as %q; commands %s", text, names)
		}
	}
}

// TestClientMCPServers: initialize offers http MCP servers; session/new
// hands the client's stdio and http servers (env and headers as maps, in
// the session's directory) to the agent as the session's own tools, tells
// in the session, after the answer, about a server that failed and one of
// a transport agent-ls does not take; session/close stops them.
func TestClientMCPServers(t *testing.T) {
	fa := &fakeAgent{}
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	init, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !init.AgentCapabilities.McpCapabilities.Http || init.AgentCapabilities.McpCapabilities.Sse {
		t.Errorf("mcpCapabilities %+v", init.AgentCapabilities.McpCapabilities)
	}
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{
		{Stdio: &sdk.McpServerStdio{Name: "files", Command: "/bin/files-mcp", Args: []string{"--root", "/w"}, Env: []sdk.EnvVariable{{Name: "TOKEN", Value: "t1"}}}},
		{Http: &sdk.McpServerHttpInline{Type: "http", Name: "remote", Url: "http://127.0.0.1:1/mcp", Headers: []sdk.HttpHeader{{Name: "Authorization", Value: "Bearer x"}}}},
		{Sse: &sdk.McpServerSseInline{Type: "sse", Name: "old", Url: "http://127.0.0.1:1/sse", Headers: []sdk.HttpHeader{}}},
		{Stdio: &sdk.McpServerStdio{Name: "broken", Command: "false", Args: []string{}, Env: []sdk.EnvVariable{}}},
		{Stdio: &sdk.McpServerStdio{Name: "badenv", Command: "x", Args: []string{}, Env: []sdk.EnvVariable{{Name: "A=B", Value: "c"}}}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	fa.mu.Lock()
	got, cwd, given, servers := fa.mcp, fa.mcpCwd, fa.tools, fa.servers
	fa.mu.Unlock()
	if len(got) != 3 || cwd != "/w" {
		t.Fatalf("servers %+v in %q", got, cwd)
	}
	if f := got[0]; f.Name != "files" || f.Command != "/bin/files-mcp" || len(f.Args) != 2 || f.Env["TOKEN"] != "t1" || f.URL != "" {
		t.Errorf("stdio server %+v", f)
	}
	if r := got[1]; r.Name != "remote" || r.URL != "http://127.0.0.1:1/mcp" || r.Headers["Authorization"] != "Bearer x" || r.Command != "" {
		t.Errorf("http server %+v", r)
	}
	if given == nil || given != agent.SessionTools(servers) {
		t.Errorf("the session's tools are %v, want the servers started", given)
	}
	// The messages come after the answer.
	wants := []string{"MCP server broken: the server exited at startup", "MCP server old: the sse transport is not supported",
		`MCP server badenv: env names no variable a process can have: "A=B"`}
	var text string
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		rec.mu.Lock()
		text = ""
		for _, u := range rec.updates {
			if u.AgentMessageChunk != nil {
				text += u.AgentMessageChunk.Content.Text.Text
			}
		}
		rec.mu.Unlock()
		if !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(text, w) }) || time.Now().After(deadline) {
			break
		}
	}
	for _, want := range wants {
		if !strings.Contains(text, want) {
			t.Errorf("the session was not told %q: %q", want, text)
		}
	}
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: res.SessionId}); err != nil {
		t.Fatal(err)
	}
	servers.mu.Lock()
	if servers.closed != 1 {
		t.Errorf("the servers were closed %d times at session/close", servers.closed)
	}
	servers.mu.Unlock()
}

// TestNewCommand: /new moves the ACP session to a fresh agent session and
// the agent forgets the old one (its record stays on disk).
func TestNewCommand(t *testing.T) {
	fa := &fakeAgent{}
	conn, rec, ctx := serve(t, Options{NewAgent: func(c Config) (Agent, error) { fa.fe = c.Frontend; return fa, nil }})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatal(err)
	}
	res, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	pr, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId, Prompt: []sdk.ContentBlock{sdk.TextBlock("/new")}})
	if err != nil || pr.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("/new: %+v %v", pr, err)
	}
	fa.mu.Lock()
	sessions, forgotten := fa.sessions, slices.Clone(fa.forgotten)
	fa.mu.Unlock()
	if sessions != 2 || !slices.Equal(forgotten, []string{"s-1"}) {
		t.Errorf("after /new: %d agent sessions, forgotten %v; want 2 and [s-1]", sessions, forgotten)
	}
	rec.mu.Lock()
	var text string
	for _, u := range rec.updates {
		if u.AgentMessageChunk != nil {
			text += u.AgentMessageChunk.Content.Text.Text
		}
	}
	rec.mu.Unlock()
	if !strings.Contains(text, "kept as session s-1") {
		t.Errorf("/new told %q", text)
	}
	// Closing the ACP session forgets the current conversation.
	if _, err := conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: res.SessionId}); err != nil {
		t.Fatal(err)
	}
	fa.mu.Lock()
	defer fa.mu.Unlock()
	if !slices.Equal(fa.forgotten, []string{"s-1", "s-2"}) {
		t.Errorf("after session/close, forgotten %v", fa.forgotten)
	}
}

// TestAgentCannotStart: the agent is built beside initialize's answer; a
// failure to build it is the answer of the requests that need it.
func TestAgentCannotStart(t *testing.T) {
	conn, _, ctx := serve(t, Options{NewAgent: func(Config) (Agent, error) { return nil, errors.New("the tool registry is broken") }})
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatalf("initialize: %v", err)
	}
	for range 2 {
		_, err := conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: "/w", McpServers: []sdk.McpServer{}})
		if err == nil || !strings.Contains(err.Error(), "agent-ls cannot start: the tool registry is broken") {
			t.Errorf("session/new: %v", err)
		}
	}
}
