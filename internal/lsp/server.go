// Package lsp is the language server: it speaks LSP (plus the agent/*
// methods of protocol.md) with an editor over one connection, keeps the
// editor's documents in a workspace.Store, starts and interrupts turns of
// the agent, and turns the agent's events into agent/event notifications
// and $/progress.
package lsp

import (
	"github.com/agent-ls/agent-ls/internal/policy"

	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/workspace"
)

// Agent is what the server drives: sessions and turns. agent.Manager
// implements it.
type Agent interface {
	NewSession(opts agent.SessionOptions) (agent.SessionInfo, error)
	// StartTurn returns as soon as the turn is accepted; the turn reports
	// through the Frontend the agent was built with.
	StartTurn(sessionID string, in agent.TurnInput) (*agent.Turn, error)
	// Interrupt ends the session's running turn ("" = whichever runs).
	Interrupt(sessionID, turnID string) error
	// UndoTurn restores the files a turn changed and returns their paths.
	UndoTurn(ctx context.Context, sessionID, turnID string) ([]string, error)
	// ListSessions returns the kept sessions, the workspace's first, most
	// recent first.
	ListSessions() ([]agent.SessionSummary, error)
	// ResumeSession brings a kept session back (a live one stays as it
	// is), so its next turn continues its history, and returns the
	// events that draw it.
	ResumeSession(ctx context.Context, sessionID string) (*agent.ResumedSession, error)
	// Compact starts a turn that summarises the session's older
	// history (agent.ErrNothingToCompact when it has none).
	Compact(sessionID string) (*agent.Turn, error)
	// LatestSession is the workspace's most recently updated kept
	// session, "" when it has none.
	LatestSession() (string, error)
	// ListMCPServers returns the configured MCP servers, starting them
	// if no session has yet.
	ListMCPServers() []MCPServer
	// Close interrupts every running turn; the agent is not used after.
	Close()
	// Queuer keeps the prompts sent while a turn runs and the steers.
	Queuer
	// Terminals lets the user see and act on the command sessions.
	Terminals
	// Moder switches sessions into and out of plan mode.
	Moder
	// SetFolders makes folders the workspace folders of every session
	// (workspace/didChangeWorkspaceFolders; the first is the root) and
	// returns what the user should be told, such as a folder that stays
	// read-only.
	SetFolders(folders []string) []Message
	// CompleteMention returns the files and folders of the session's
	// workspace ("": the workspace's) that best match what the user
	// typed after @, best first; complete is false when a folder's
	// first listing was still going on.
	CompleteMention(ctx context.Context, sessionID, query string, limit int) (found []agent.Mention, complete bool, err error)
	// FilesChanged reports files the editor saw created, changed,
	// deleted or renamed.
	FilesChanged(paths ...string)
	// Rewinder takes sessions back to earlier turns.
	Rewinder
}

// InitOptions are the editor's initializationOptions (protocol section 1).
type InitOptions struct {
	Model          string                `json:"model"`
	Profile        string                `json:"profile"`
	ApprovalPolicy policy.ApprovalPolicy `json:"approvalPolicy"`
	SandboxMode    policy.SandboxMode    `json:"sandboxMode"`
	// SaveAgentEdits: see Options.SaveAgentEdits.
	SaveAgentEdits *bool `json:"saveAgentEdits"`
}

// AgentConfig is what the server knows when the editor initializes, which
// is when the agent is built.
type AgentConfig struct {
	// Frontend is the connection: it receives the agent's events.
	Frontend agent.Frontend
	// Reviewer, set when the editor reviews changes before they are
	// applied (experimental.agent.review), asks it: agent.Options.Reviewer.
	Reviewer agent.Reviewer
	// Files is the editor's view of the files, unsaved edits included.
	Files *workspace.Store
	// Cwd is the first workspace folder (or the root), "" if none.
	Cwd string
	// Folders are all the workspace folders, Cwd first: every session's
	// workspace holds them.
	Folders []string
	Init    InitOptions
	// Settings are the initializationOptions as the editor sent them, for
	// the settings Init does not name.
	Settings json.RawMessage
	// Show tells the user something once the editor is ready for it
	// (such as a setting that could not be used).
	Show func(...Message)
	// Client is what the editor can do.
	Client ClientCapabilities
}

// Options configure Serve.
type Options struct {
	// Version is reported in serverInfo.
	Version string
	// Logger receives the server's log; never stdout, which is the
	// protocol. Nil discards.
	Logger *slog.Logger
	// NewAgent builds the agent for this connection at initialize. When it
	// is nil, the agent methods answer RequestFailed.
	NewAgent func(AgentConfig) (Agent, error)
	// TranscriptDir is where each session's conversation is kept as
	// Markdown (agent.showConversation); empty keeps none.
	TranscriptDir string
	// SaveAgentEdits: after the editor applied an agent edit to a buffer
	// that had no unsaved changes, write the new text to its file too
	// (the default), so commands see it; initializationOptions
	// saveAgentEdits overrides it.
	SaveAgentEdits *bool
	// ProgressTimeout bounds how long a turn's progress waits for the
	// editor to answer window/workDoneProgress/create before the turn goes
	// without progress (default 10s).
	ProgressTimeout time.Duration
	// Notices are shown to the user (window/showMessage) once the editor
	// has initialized.
	Notices []string
}

// Serve runs the language server on rwc until the editor sends exit, the
// connection ends or ctx is done. It returns the exit status LSP asks for:
// 0 if shutdown came first, 1 otherwise.
func Serve(ctx context.Context, rwc io.ReadWriteCloser, opts Options) (exitCode int, err error) {
	s := newServer(opts)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	st := newStream(rwc, s.log)
	st.cutter = &textCutter{texts: &s.texts}
	s.conn = jsonrpc2.NewConn(st,
		jsonrpc2.WithCodec(codec{}),
		jsonrpc2.WithPreempter(textSync{s}))
	s.client = protocol.ClientDispatcher(s.conn)
	outboxDone := make(chan struct{})
	go func() {
		s.out.run(ctx)
		close(outboxDone)
	}()
	s.conn.Go(ctx, s.guard(protocol.Handlers(s.route(protocol.ServerHandler(s, jsonrpc2.MethodNotFoundHandler)))))

	select {
	case <-s.exited:
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	s.closeAgent()
	cancel()
	// Closing the transport ends the read loop and fails calls still
	// waiting for the editor. Don't wait long for the rest: after exit the
	// process is about to end, and a read blocked on a terminal stdin may
	// never return.
	rwc.Close()
	grace, stop := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer stop()
	for _, done := range []<-chan struct{}{s.conn.Done(), outboxDone} {
		select {
		case <-done:
		case <-grace.Done():
		}
	}
	if s.state.Load() >= stateShutdown {
		return 0, s.conn.Err()
	}
	return 1, s.conn.Err()
}

// Lifecycle states, in order.
const (
	stateNew int32 = iota
	stateInitialized
	stateShutdown
)

// server is one connection's language server.
type server struct {
	protocol.UnimplementedServer

	opts  Options
	log   *slog.Logger
	store *workspace.Store
	// closedText is the text of the documents closed since memory was
	// last given back (see textSync): many small ones add up.
	closedText atomic.Int64
	// texts are the document texts the stream cut out of the message
	// being handled (doctext.go).
	texts  docTexts
	conn   jsonrpc2.Conn
	client protocol.Client
	out    *outbox
	convs  *conversations
	terms  *terminalTracker

	state      atomic.Int32
	exited     chan struct{}
	exitOnce   sync.Once
	closeOnce  sync.Once
	initOnce   atomic.Bool
	mu         sync.Mutex // guards the fields below, set once at initialize
	caps       ClientCapabilities
	agent      Agent
	folders    []string
	agentError string
	saveEdits  bool
	// ready: the editor has sent initialized, messages may be shown;
	// until then they wait in pending.
	ready   bool
	pending []Message
}

func newServer(opts Options) *server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.ProgressTimeout <= 0 {
		opts.ProgressTimeout = 10 * time.Second
	}
	s := &server{
		opts:   opts,
		log:    opts.Logger,
		store:  workspace.NewStore(),
		exited: make(chan struct{}),
		convs:  newConversations(),
		terms:  newTerminalTracker(),
	}
	s.out = newOutbox(s)
	return s
}

// route handles the agent/* methods and enforces the lifecycle before
// anything else sees a message.
func (s *server) route(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		method := req.Method()
		if err := s.admit(method); err != nil {
			if !req.IsCall() {
				return nil, nil // LSP: drop notifications the state does not allow
			}
			return nil, err
		}
		switch method {
		case methodNewSession:
			return s.newSession(req.Params())
		case methodStartTurn:
			return s.startTurn(ctx, req.Params())
		case methodInterrupt:
			return s.interrupt(ctx, req.Params())
		case methodUndoTurn:
			return s.undoTurn(ctx, req.Params())
		case methodRewind:
			return s.rewindMethod(ctx, req.Params())
		case methodListSessions:
			return s.listSessions()
		case methodResumeSession:
			return s.resumeSession(ctx, req.Params())
		case methodCompact:
			return s.compact(ctx, req.Params())
		case methodListMCPServers:
			return s.listMCPServers()
		case methodSteer, methodUpdateQueued, methodRemoveQueued, methodResumeQueue:
			return s.queueMethod(ctx, method, req.Params())
		case methodListTerminals, methodKillTerminal, methodWriteTerminal:
			return s.terminalMethod(ctx, method, req.Params())
		case methodSetMode, methodApprovePlan:
			return s.modeMethod(ctx, method, req.Params())
		case methodCompleteMention:
			return s.completeMention(ctx, req.Params())
		}
		if fileChangeMethods[method] && !req.IsCall() {
			s.filesChanged(method, req.Params())
			return nil, nil
		}
		if lspMethods[method] {
			return next(ctx, req)
		}
		if req.IsCall() {
			return nil, jsonrpc2.Errorf(jsonrpc2.MethodNotFound, "method not found: %s", method)
		}
		return nil, nil // LSP: ignore notifications we do not handle
	}
}

// lspMethods are the LSP methods the server implements (the document
// notifications never get here: textSync takes them).
var lspMethods = map[string]bool{
	protocol.MethodInitialize:                   true,
	protocol.MethodInitialized:                  true,
	protocol.MethodShutdown:                     true,
	protocol.MethodExit:                         true,
	protocol.MethodWindowWorkDoneProgressCancel: true,
	protocol.MethodTextDocumentCodeAction:       true,
	protocol.MethodWorkspaceExecuteCommand:      true,
}

// admit applies the LSP lifecycle: nothing but initialize (and exit)
// before initialize, nothing but exit after shutdown.
func (s *server) admit(method string) error {
	if method == protocol.MethodExit {
		return nil
	}
	switch s.state.Load() {
	case stateNew:
		if method == protocol.MethodInitialize {
			return nil
		}
		return jsonrpc2.NewError(jsonrpc2.ServerNotInitialized, "the server is not initialized yet")
	case stateShutdown:
		return jsonrpc2.NewError(jsonrpc2.InvalidRequest, "the server is shutting down")
	}
	return nil
}

// guard keeps one message from taking the connection down: jsonrpc2 closes
// the connection when a notification handler returns an error or any
// handler panics. It also reports undecodable params as InvalidParams:
// protocol's dispatcher calls them parse errors, but the message itself
// parsed (the stream answers the ones that do not).
func (s *server) guard(next jsonrpc2.Handler) jsonrpc2.Handler {
	return func(ctx context.Context, req *jsonrpc2.Request) (result any, err error) {
		defer func() {
			if r := recover(); r != nil {
				s.log.Error("handler panicked", "method", req.Method(), "panic", r, "stack", string(debug.Stack()))
				result, err = nil, jsonrpc2.Errorf(jsonrpc2.InternalError, "internal error in %s: %v", req.Method(), r)
			}
			if err != nil && !req.IsCall() {
				s.log.Warn("notification failed", "method", req.Method(), "err", err)
				result, err = nil, nil
			}
		}()
		result, err = next(ctx, req)
		var rpcErr *jsonrpc2.Error
		if errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.ParseError {
			err = jsonrpc2.Errorf(jsonrpc2.InvalidParams, "invalid params for %s: %v", req.Method(), err)
		}
		if err != nil && req.IsCall() {
			s.log.Debug("request failed", "method", req.Method(), "err", err)
		}
		return result, err
	}
}

// capabilities returns what the editor can do (zero before initialize).
func (s *server) capabilities() ClientCapabilities {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.caps
}

// theAgent returns the agent, or the error to answer with when there is
// none.
func (s *server) theAgent() (Agent, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.agent == nil {
		msg := "the agent is not available"
		if s.agentError != "" {
			msg += ": " + s.agentError
		}
		return nil, jsonrpc2.NewError(codeRequestFailed, msg)
	}
	return s.agent, nil
}

// defaultCwd is where sessions run unless told otherwise: the first
// workspace folder.
func (s *server) defaultCwd() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.folders) > 0 {
		return s.folders[0]
	}
	return ""
}

// closeAgent interrupts the agent's turns when the editor goes away.
func (s *server) closeAgent() {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		a := s.agent
		s.mu.Unlock()
		if a != nil {
			a.Close()
		}
	})
}

// notify sends a notification, logging failure: the editor may be gone.
func (s *server) notify(ctx context.Context, method string, params any) {
	if err := s.conn.Notify(ctx, method, params); err != nil {
		s.log.Debug("notification not sent", "method", method, "err", err)
	}
}
