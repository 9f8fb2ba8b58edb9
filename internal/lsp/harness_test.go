package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agent-ls/agent-ls/internal/policy"
	"log/slog"
	"net"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/editor"
	"github.com/agent-ls/agent-ls/internal/event"
)

// fakeAgent stands in for agent.Manager: it records what the server asks
// of it, and tests make it report events through the frontend.
type fakeAgent struct {
	cfg AgentConfig

	mu         sync.Mutex
	sessions   map[string]agent.SessionOptions
	running    map[string]string // session → running turn
	turns      []agent.TurnInput
	seq        map[string]int64
	nextID     int
	interrupts []turnKey
	closed     bool
	// kept are the sessions a restart left (ListSessions, ResumeSession),
	// most recent first; resumed the ids brought back.
	kept    []keptSession
	resumed []string
	// blockInterrupt, when set, makes Interrupt wait until it is closed.
	blockInterrupt chan struct{}
	interrupted    chan turnKey
	// mcp are the MCP servers ListMCPServers reports.
	mcp []MCPServer
	// queue is what the queue methods were asked (queue_test.go).
	queue *fakeQueue
	// terminals are the command sessions (terminals_test.go).
	terminals *fakeTerminals
	// folders are the workspace folders set, each time (folders_test.go).
	folders [][]string
	// mentionQueries are "sessionId|query" of each CompleteMention,
	// changedFiles what FilesChanged was told (mentions_test.go).
	mentionQueries []string
	changedFiles   []string
	// rewinds are the rewinds asked for (rewind_test.go).
	rewinds []rewindCall
}

func newFakeAgent(cfg AgentConfig) *fakeAgent {
	return &fakeAgent{
		cfg:         cfg,
		sessions:    make(map[string]agent.SessionOptions),
		running:     make(map[string]string),
		seq:         make(map[string]int64),
		interrupted: make(chan turnKey, 16),
	}
}

func (a *fakeAgent) NewSession(opts agent.SessionOptions) (agent.SessionInfo, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if opts.Cwd == "/nonexistent" {
		return agent.SessionInfo{}, errors.New("session cwd: no such directory")
	}
	a.nextID++
	id := fmt.Sprintf("s%d", a.nextID)
	a.sessions[id] = opts
	model := opts.Model
	if model == "" {
		model = "fake-model"
	}
	return agent.SessionInfo{SessionID: id, Cwd: opts.Cwd, Model: model,
		ApprovalPolicy: policy.OnRequest, SandboxMode: policy.WorkspaceWrite, Mode: opts.Mode}, nil
}

func (a *fakeAgent) StartTurn(sessionID string, in agent.TurnInput) (*agent.Turn, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.sessions[sessionID]; !ok {
		return nil, fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	if a.running[sessionID] != "" {
		return nil, agent.ErrTurnRunning
	}
	a.nextID++
	turn := fmt.Sprintf("t%d", a.nextID)
	a.running[sessionID] = turn
	a.turns = append(a.turns, in)
	// The server does not wait on the handle; tests end turns through
	// complete.
	return agent.NewTurn(turn, make(chan struct{}), &agent.TurnResult{}), nil
}

// Compact: the fake's sessions have no history to compact.
func (a *fakeAgent) Compact(sessionID string) (*agent.Turn, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.sessions[sessionID]; !ok {
		return nil, fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	return nil, agent.ErrNothingToCompact
}

// UndoTurn: the fake changes no files.
func (a *fakeAgent) UndoTurn(_ context.Context, sessionID, turnID string) ([]string, error) {
	return nil, fmt.Errorf("%w: turn %q of session %s changed no files", agent.ErrNoTurn, turnID, sessionID)
}

// keptSession is a session the fake keeps as if from before a restart.
type keptSession struct {
	summary agent.SessionSummary
	items   []event.Event
}

func (a *fakeAgent) ListSessions() ([]agent.SessionSummary, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	out := []agent.SessionSummary{}
	for _, k := range a.kept {
		out = append(out, k.summary)
	}
	return out, nil
}

func (a *fakeAgent) ListMCPServers() []MCPServer {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mcp
}

func (a *fakeAgent) LatestSession() (string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.kept) == 0 {
		return "", nil
	}
	return a.kept[0].summary.SessionID, nil
}

// ResumeSession makes a kept session live.
func (a *fakeAgent) ResumeSession(_ context.Context, id string) (*agent.ResumedSession, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, k := range a.kept {
		if k.summary.SessionID != id {
			continue
		}
		a.sessions[id] = agent.SessionOptions{Cwd: k.summary.Cwd}
		a.resumed = append(a.resumed, id)
		rs := &agent.ResumedSession{Info: agent.SessionInfo{SessionID: id, Cwd: k.summary.Cwd, Model: "fake-model"}}
		for _, ev := range k.items {
			b, err := json.Marshal(ev)
			if err != nil {
				return nil, err
			}
			rs.Items = append(rs.Items, b)
		}
		return rs, nil
	}
	return nil, fmt.Errorf("%w: %q", agent.ErrUnknownSession, id)
}

func (a *fakeAgent) Interrupt(sessionID, turnID string) error {
	a.mu.Lock()
	if _, ok := a.sessions[sessionID]; !ok {
		a.mu.Unlock()
		return fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	block := a.blockInterrupt
	running := a.running[sessionID]
	if running == "" || (turnID != "" && turnID != running) {
		a.mu.Unlock()
		return agent.ErrNoTurn
	}
	a.interrupts = append(a.interrupts, turnKey{sessionID, running})
	a.mu.Unlock()
	if block != nil {
		<-block
	}
	a.complete(sessionID, running, event.StatusInterrupted)
	a.interrupted <- turnKey{sessionID, running}
	return nil
}

func (a *fakeAgent) Close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
}

// emit reports one event of a turn.
func (a *fakeAgent) emit(session, turn string, p event.Payload) {
	a.mu.Lock()
	a.seq[session]++
	seq := a.seq[session]
	a.mu.Unlock()
	a.cfg.Frontend.Event(event.Event{SessionID: session, TurnID: turn, Seq: seq, Payload: p})
}

// complete ends a turn with turnCompleted.
func (a *fakeAgent) complete(session, turn string, status event.TurnStatus) {
	a.mu.Lock()
	if a.running[session] == turn {
		delete(a.running, session)
	}
	a.mu.Unlock()
	a.emit(session, turn, event.TurnCompleted{Status: status, LastMessage: "all done"})
}

func (a *fakeAgent) lastTurn() agent.TurnInput {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.turns) == 0 {
		return agent.TurnInput{}
	}
	return a.turns[len(a.turns)-1]
}

func (a *fakeAgent) session(id string) agent.SessionOptions {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.sessions[id]
}

// harness is a server served in-process over a pipe, driven by the fake
// editor.
type harness struct {
	t      *testing.T
	ctx    context.Context
	ed     *editor.Editor
	agents chan *fakeAgent
	agent  *fakeAgent
	// served is closed when Serve has returned with result.
	served chan struct{}
	result *served
}

type served struct {
	code int
	err  error
}

// serveInBackground runs Serve and waits for it when the test ends, so that
// nothing logs to a finished test.
func serveInBackground(t *testing.T, ctx context.Context, rwc net.Conn, o Options) (done chan struct{}, result *served) {
	done, result = make(chan struct{}), new(served)
	go func() {
		result.code, result.err = Serve(ctx, rwc, o)
		close(done)
	}()
	t.Cleanup(func() {
		rwc.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("Serve did not return after the test")
		}
	})
	return done, result
}

type harnessOption func(*Options, *editor.Config)

// newHarness starts a server and connects an editor to it; the editor is
// not initialized yet.
func newHarness(t *testing.T, opts ...harnessOption) *harness {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	h := &harness{t: t, ctx: ctx, agents: make(chan *fakeAgent, 1)}
	serverEnd, editorEnd := net.Pipe()
	o := Options{
		Version: "1.2.3",
		Logger:  slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug})),
		NewAgent: func(cfg AgentConfig) (Agent, error) {
			a := newFakeAgent(cfg)
			h.agents <- a
			return a, nil
		},
	}
	var ecfg editor.Config
	for _, opt := range opts {
		opt(&o, &ecfg)
	}
	done, result := serveInBackground(t, ctx, serverEnd, o)
	h.served, h.result = done, result
	ecfg.Wait = func(ctx context.Context) (int, error) {
		select {
		case <-done:
			return result.code, result.err
		case <-ctx.Done():
			return -1, ctx.Err()
		}
	}
	h.ed = editor.Connect(editorEnd, ecfg)
	t.Cleanup(h.ed.Disconnect)
	return h
}

// initialize initializes the editor and picks up the agent the server
// built.
func (h *harness) initialize(o editor.Options) {
	h.t.Helper()
	if len(o.WorkspaceFolders) == 0 {
		o.WorkspaceFolders = []string{h.t.TempDir()}
	}
	if _, err := h.ed.Initialize(h.ctx, o); err != nil {
		h.t.Fatalf("initialize: %v", err)
	}
	select {
	case h.agent = <-h.agents:
	case <-h.ctx.Done():
		h.t.Fatal("no agent was built")
	}
}

// startTurn starts a turn with agent/startTurn and returns its ids.
func (h *harness) startTurn(params map[string]any) startTurnResult {
	h.t.Helper()
	var r startTurnResult
	if err := h.ed.Request(h.ctx, methodStartTurn, params, &r); err != nil {
		h.t.Fatalf("startTurn: %v", err)
	}
	return r
}

// rpcError asserts err is a JSON-RPC error with code and returns its
// message.
func rpcError(t *testing.T, err error, code int64) string {
	t.Helper()
	if err == nil {
		t.Fatalf("no error, want code %d", code)
	}
	var rpc *jsonrpc2.Error
	if !errors.As(err, &rpc) {
		t.Fatalf("error %v (%T) is not a JSON-RPC error", err, err)
	}
	if int64(rpc.Code) != code {
		t.Fatalf("error code %d (%s), want %d", rpc.Code, rpc.Message, code)
	}
	return rpc.Message
}

// sync returns once the server has handled everything the editor sent
// before: text synchronization runs in wire order on the server's read
// loop (a Preempter, the texts cut out of their frames as they are read:
// doctext.go), so the answer to a request sent after it comes after it.
func (h *harness) sync() {
	h.t.Helper()
	err := h.ed.Request(h.ctx, "agent-ls/test/sync", nil, nil)
	var rpcErr *jsonrpc2.Error
	if !errors.As(err, &rpcErr) || rpcErr.Code != jsonrpc2.MethodNotFound {
		h.t.Fatalf("sync request: %v, want MethodNotFound", err)
	}
}

// rewindCall is one Rewind the fake was asked for.
type rewindCall struct{ sessionID, turnID, prompt string }

// Rewind: the fake restores one file of a turn "t1" once per session.
func (a *fakeAgent) Rewind(_ context.Context, sessionID, turnID, prompt string) (agent.RewindResult, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.sessions[sessionID]; !ok {
		return agent.RewindResult{}, fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	for _, r := range a.rewinds {
		if r.sessionID == sessionID {
			return agent.RewindResult{}, fmt.Errorf("%w: no turn to rewind", agent.ErrNoTurn)
		}
	}
	a.rewinds = append(a.rewinds, rewindCall{sessionID, turnID, prompt})
	res := agent.RewindResult{Rewound: []string{"t1"}, Files: []string{"/ws/a.txt"},
		Conflicts: []agent.RewindIssue{{Path: "/ws/b.txt", Reason: "changed since turn t1 where that turn changed it"}}}
	if prompt != "" {
		res.TurnID = "t2"
	}
	return res, nil
}

// Checkpoints: one turn to rewind until a rewind took it.
func (a *fakeAgent) Checkpoints(sessionID string) ([]agent.TurnCheckpoint, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.sessions[sessionID]; !ok {
		return nil, fmt.Errorf("%w: %q", agent.ErrUnknownSession, sessionID)
	}
	cp := agent.TurnCheckpoint{TurnID: "t1"}
	for _, r := range a.rewinds {
		cp.Rewound = cp.Rewound || r.sessionID == sessionID
	}
	return []agent.TurnCheckpoint{cp}, nil
}
