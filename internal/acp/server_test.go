package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
)

// fakeAgent stands in for the manager: sessions are named, and a
// compaction reports through the frontend like the agent's does.
type fakeAgent struct {
	fe       agent.Frontend
	compacts int
}

func (f *fakeAgent) NewSession(o agent.SessionOptions) (agent.SessionInfo, error) {
	return agent.SessionInfo{SessionID: "s-1", Cwd: o.Cwd, Model: "m", ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite}, nil
}
func (f *fakeAgent) StartTurn(string, agent.TurnInput) (*agent.Turn, error) {
	return nil, errors.New("no turns here")
}
func (f *fakeAgent) Interrupt(string, string) error { return nil }
func (f *fakeAgent) UndoTurn(context.Context, string, string) ([]string, error) {
	return nil, nil
}
func (f *fakeAgent) UpdateSession(string, func(*agent.SessionOptions)) (agent.SessionInfo, error) {
	return agent.SessionInfo{}, errors.New("fixed")
}
func (f *fakeAgent) ListSessions(string) ([]SessionSummary, error) { return nil, nil }
func (f *fakeAgent) ResumeSession(context.Context, string) (*ResumedSession, error) {
	return nil, agent.ErrUnknownSession
}
func (f *fakeAgent) Close() {}
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
	rec := &recorder{}
	conn := sdk.NewClientSideConnection(rec, fromClient, toClient)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	return conn, rec, ctx
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
		if !strings.Contains(text, "about 9000 tokens before, 800 after") || names != "/undo/new/compact" {
			t.Errorf("compaction told as %q; commands %s", text, names)
		}
	}
}
