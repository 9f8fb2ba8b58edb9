// Package acp serves the agent to Agent Client Protocol clients (Zed, the
// JetBrains IDEs, codecompanion and others): ACP v1, newline-delimited
// JSON-RPC on stdin/stdout, through github.com/coder/acp-go-sdk. It is a
// second front end beside the language server, not a second agent: it
// drives sessions and turns through Agent (the manager API the language
// server uses too) and receives what they do through agent.Frontend.
//
// The SDK reads, decodes, encodes and writes every message; the wire
// beneath it (wire.go) answers what JSON-RPC says must be answered and
// the SDK only logs, and holds what must wait for an answer to be out.
package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/mcp"
)

// Agent is what the ACP server drives: sessions and turns. internal/app
// implements it over agent.Manager and the session store.
type Agent interface {
	NewSession(opts agent.SessionOptions) (agent.SessionInfo, error)
	// StartTurn returns as soon as the turn is accepted; the turn reports
	// through the Frontend the agent was built with.
	StartTurn(sessionID string, in agent.TurnInput) (*agent.Turn, error)
	// Interrupt ends the session's running turn ("" = whichever runs).
	Interrupt(sessionID, turnID string) error
	// Submit queues a prompt while a turn runs (or starts it when none
	// does); the handle ends when the prompt's own turn has ended.
	Submit(sessionID string, in agent.TurnInput) (agent.Submitted, error)
	// Steer sends a message into the session's running turn, or starts
	// a turn with it when none runs (/steer).
	Steer(sessionID string, in agent.TurnInput, queuedTurnID string) (agent.SteerResult, error)
	// ClearQueue empties the session's queue; the prompts in it end
	// interrupted.
	ClearQueue(sessionID string) error
	// UndoTurn restores the files a turn changed and returns their paths.
	UndoTurn(ctx context.Context, sessionID, turnID string) ([]string, error)
	// Rewind takes the session back to before turnID ("" the last turn,
	// a number the N-th) (/rewind [N]).
	Rewind(ctx context.Context, sessionID, turnID, prompt string) (agent.RewindResult, error)
	// UpdateSession changes a session's own settings (modes, config
	// options) from its next turn on.
	UpdateSession(sessionID string, update func(*agent.SessionOptions)) (agent.SessionInfo, error)
	// ListSessions returns the kept sessions, those of cwd first (all of
	// them when cwd is ""), most recent first.
	ListSessions(cwd string) ([]agent.SessionSummary, error)
	// ResumeSession brings a kept session back (a live one stays as it
	// is) and returns the events that draw it.
	ResumeSession(ctx context.Context, sessionID string) (*agent.ResumedSession, error)
	// Compact starts a turn that only summarises the session's history
	// (/compact), when Options.Compact offers it.
	Compact(sessionID string) (*agent.Turn, error)
	// MCPServers starts, in the background, the MCP servers a client
	// names for one session whose directory is cwd, beside the
	// configured ones. A server that cannot start is told to failed (at
	// once or later, from any goroutine; failed must not block) and left
	// out. Nil when no server is left.
	MCPServers(cwd string, servers []MCPServer, failed func(server string, err error)) SessionServers
	// Prompts are the prompt templates of the session's MCP servers
	// (the configured ones and the session's own), run as slash
	// commands /<server>:<prompt> in session/prompt.
	Prompts(sessionID string) ([]agent.Prompt, error)
	// ListTerminals lists a session's command sessions (/terminals).
	ListTerminals(sessionID string) ([]agent.TerminalInfo, error)
	// KillTerminal stops one command session and all it started (/kill
	// N); StopTerminals stops every running one (/kill, /kill all) and
	// returns their ids.
	KillTerminal(sessionID string, id int) error
	StopTerminals(sessionID string) ([]int, error)
	// Forget drops a session the client closed from the agent; its
	// record stays, for session/load.
	Forget(sessionID string) error
	// ApprovePlan ends the session's plan mode and starts, or queues
	// behind the running turn, the turn that carries out the plan
	// (/approve); the handle ends when that turn does.
	ApprovePlan(sessionID string) (agent.Submitted, error)
	// Close interrupts every running turn; the agent is not used after.
	Close()
}

// Config is what the server knows when the client initializes, which is
// when the agent is built.
type Config struct {
	// Frontend is the connection: it receives the agent's events.
	Frontend agent.Frontend
	// Files is the view of the files the tools read: through the client
	// when it offers fs/read_text_file, else nil (the disk).
	Files agent.FileReader
	// Tell tells the user msg (a configured MCP server that failed) in
	// every session open on the connection, as the agent's text; what
	// comes before the first session can be told waits for it. It never
	// blocks.
	Tell func(msg string)
	// PromptsChanged tells the server that the prompts of MCP servers
	// changed (Agent.Prompts): every session's slash commands are sent
	// again where they changed. It never blocks for long.
	PromptsChanged func()
}

// Options configure Serve.
type Options struct {
	// Version is reported in agentInfo.
	Version string
	// Logger receives the server's log (never stdout). Nil discards.
	Logger *slog.Logger
	// NewAgent builds the agent at initialize.
	NewAgent func(Config) (Agent, error)
	// KeyVariable names the environment variable the model provider's
	// key must come from when it is not set, "" when the provider has
	// what it needs. Nil: no key needed.
	KeyVariable func() string
	// Model and ReasoningEffort are the configured defaults, offered as
	// config options; Models are more model names to offer.
	Model           string
	Models          []string
	ReasoningEffort string
	// Compact offers /compact (Agent.Compact can summarise a history).
	Compact bool
}

// ProtocolVersion is the ACP version served.
const ProtocolVersion = sdk.ProtocolVersionNumber

// Serve runs the ACP agent on in/out until the client closes the
// connection or ctx ends.
func Serve(ctx context.Context, in io.Reader, out io.Writer, opts Options) error {
	s := newServer(opts)
	s.wire = &wire{out: out, log: s.log, onInitialize: s.initializeArrived}
	// The SDK's reader starts at once and reads its logger when the input
	// ends: nothing comes in until the logger is set (a race otherwise).
	start := make(chan struct{})
	s.conn = sdk.NewAgentSideConnection(s, s.wire, s.wire.reader(in, start))
	s.conn.SetLogger(s.log)
	close(start)
	select {
	case <-ctx.Done():
	case <-s.conn.Done():
	}
	s.shutdown()
	return nil
}

// server is one client's connection: the SDK's Agent and the agent's
// Frontend at once.
type server struct {
	opts Options
	log  *slog.Logger
	conn *sdk.AgentSideConnection
	wire *wire
	out  *outbox

	// initArrived: an initialize request came in (in wire order, before
	// the requests after it, which the SDK runs concurrently); ready
	// closes as its answer is written (initializeArrived). A client that
	// sends session/new right behind initialize gets it handled after it.
	initArrived atomic.Bool
	ready       chan struct{}
	readyOnce   sync.Once

	// The agent is built once, when initialize comes, beside its answer:
	// the answer does not wait for it, the requests that need it do
	// (theAgent). built closes when NewAgent has returned.
	buildOnce sync.Once
	building  atomic.Bool
	built     chan struct{}

	mu       sync.Mutex
	agent    Agent
	buildErr error // NewAgent's
	client   sdk.ClientCapabilities
	// termMeta: the client takes live command output as
	// _meta.terminal_output updates (terminals.go). Set at initialize,
	// before any session.
	termMeta atomic.Bool
	sessions map[string]*session // by ACP session id
	byAgent  map[string]*session // by the agent's session id (differs after /new)
	closed   bool

	// cmdMu keeps the slash commands sent in the order they were made.
	cmdMu sync.Mutex

	// told holds the messages for every session (Config.Tell) until a
	// session can be told.
	told mcp.Notices

	// named are the files the client named: the file view asks it about
	// these even when the disk has no such file.
	named namedPaths
}

func newServer(opts Options) *server {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &server{opts: opts, log: log, out: newOutbox(), ready: make(chan struct{}), built: make(chan struct{}), sessions: map[string]*session{}, byAgent: map[string]*session{}}
}

func (s *server) shutdown() {
	if s.building.Load() {
		<-s.built
	}
	s.mu.Lock()
	a := s.agent
	s.closed = true
	s.mu.Unlock()
	if a != nil {
		a.Close()
	}
	// No MCP server of a session outlives the connection.
	for _, ss := range s.openSessions() {
		ss.stopServers()
	}
	s.out.close()
}

// openSessions are the sessions open on the connection now.
func (s *server) openSessions() []*session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Collect(maps.Values(s.sessions))
}

// theAgent returns the agent, or the error for a client that has not
// initialized.
func (s *server) theAgent() (Agent, error) {
	if s.initArrived.Load() {
		select {
		case <-s.ready:
		case <-time.After(clientTimeout):
		}
	}
	if s.building.Load() {
		<-s.built
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.buildErr != nil {
		return nil, &sdk.RequestError{Code: -32603, Message: "agent-ls cannot start: " + s.buildErr.Error()}
	}
	if s.agent == nil {
		return nil, &sdk.RequestError{Code: -32600, Message: "Invalid request: initialize first"}
	}
	return s.agent, nil
}

// build builds the agent for the client's capabilities, once; theAgent
// waits for it.
func (s *server) build(caps sdk.ClientCapabilities) {
	s.buildOnce.Do(func() {
		cfg := Config{Frontend: s, Tell: s.told.Add, PromptsChanged: s.promptsChanged}
		if caps.Fs.ReadTextFile {
			cfg.Files = &clientFiles{s: s}
		}
		s.building.Store(true)
		go func() {
			a, err := s.opts.NewAgent(cfg)
			if err != nil {
				s.log.Error("acp: cannot start the agent", "err", err)
			}
			s.mu.Lock()
			s.agent, s.buildErr = a, err
			s.mu.Unlock()
			close(s.built)
		}()
	})
}

// keyVariable is the variable the user must set first, "" if none.
func (s *server) keyVariable() string {
	if s.opts.KeyVariable == nil {
		return ""
	}
	return s.opts.KeyVariable()
}

// authMethods are empty when the model provider has its key; else one
// env_var method names the variable. The env_var method is in the Go
// SDK's types (marked unstable there); clients that do not know it see
// an entry with an id, a name and a description that says what to do.
func (s *server) authMethods() []sdk.AuthMethod {
	v := s.keyVariable()
	if v == "" {
		return []sdk.AuthMethod{}
	}
	return []sdk.AuthMethod{{EnvVar: &sdk.AuthMethodEnvVarInline{
		Type:        "env_var",
		Id:          "env:" + v,
		Name:        "Set " + v,
		Description: sdk.Ptr("agent-ls reads the model provider's API key from the environment variable " + v + ": set it where the editor starts agent-ls."),
		Vars:        []sdk.AuthEnvVar{{Name: v}},
	}}}
}

// authRequired is the error of session/new and the like without a key.
func (s *server) authRequired() error {
	v := s.keyVariable()
	if v == "" {
		return nil
	}
	return &sdk.RequestError{Code: -32000, Message: "Authentication required: set the environment variable " + v + " (the model provider's API key) where the editor starts agent-ls",
		Data: map[string]any{"envVar": v}}
}

// Authenticate cannot set a variable in our environment: it says so,
// unless the key has been there all along.
func (s *server) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	if err := s.authRequired(); err != nil {
		return sdk.AuthenticateResponse{}, err
	}
	return sdk.AuthenticateResponse{}, nil
}

// Logout: agent-ls keeps no login.
func (s *server) Logout(ctx context.Context, p sdk.LogoutRequest) (sdk.LogoutResponse, error) {
	return sdk.LogoutResponse{}, nil
}

// requestError maps the agent's errors to JSON-RPC errors whose message
// a user can act on.
func requestError(err error) error {
	var re *sdk.RequestError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &re):
		return re
	case errors.Is(err, agent.ErrUnknownSession):
		return &sdk.RequestError{Code: -32002, Message: "Resource not found: " + err.Error()}
	case errors.Is(err, agent.ErrTurnRunning):
		return &sdk.RequestError{Code: -32600, Message: "Invalid request: " + err.Error()}
	case errors.Is(err, agent.ErrImageInput):
		return &sdk.RequestError{Code: -32602, Message: "Invalid params: " + err.Error()}
	}
	return &sdk.RequestError{Code: -32603, Message: err.Error()}
}

func invalidParams(format string, args ...any) error {
	return &sdk.RequestError{Code: -32602, Message: "Invalid params: " + fmt.Sprintf(format, args...)}
}
