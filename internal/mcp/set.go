package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/agent-ls/agent-ls/internal/tools"
)

// State is where a server stands.
type State string

// Server states (agent/listMcpServers).
const (
	StateStarting State = "starting"
	StateReady    State = "ready"
	StateFailed   State = "failed"
	// StateNeedsLogin is a url server that asks for authorization
	// agent-ls has no valid token for: it is not started again, and
	// its Error says to run `agent-ls mcp login NAME`.
	StateNeedsLogin State = "needsLogin"
)

// Status is a server as agent/listMcpServers and `agent-ls mcp list`
// show it.
type Status struct {
	Name  string
	State State
	// Transport is a connected url server's: TransportStreamableHTTP
	// or TransportSSE.
	Transport string
	// Error says why a failed server failed.
	Error string
	// Tools are the server's own names of the tools offered from it,
	// sorted.
	Tools []string
	// Stdio: the server is a command; StderrTail holds the last lines it
	// wrote to its stderr.
	Stdio      bool
	StderrTail []string
}

// Options configure a Set.
type Options struct {
	// Registry receives each server's tools as the source named by
	// SourceName.
	Registry *tools.Registry
	// Logger logs the servers' lives; nil discards.
	Logger *slog.Logger
	// Failed, when set, is told once per server that fails to start or
	// that is given up after MaxFailures failures in a row, with a
	// message for the user. It must not block.
	Failed func(server string, err error)
	// Environ is the environment stdio servers take their base from
	// (ServerEnv); nil means os.Environ.
	Environ func() []string
	// ClientVersion is agent-ls's version, told to servers.
	ClientVersion string
	// PromptsChanged, when set, is called when a server's prompts
	// changed (Set.Prompts): listed at its start, changed by its
	// list_changed, withdrawn when it is given up. It must not block.
	PromptsChanged func()
	// Parent, when set, is the set of configured servers that this one
	// (a session's own) stands beside: this set's resource tools serve
	// the parent's servers too, and take the place of the parent's in
	// the session's tools (tools.Source.Supersedes), so the model reaches
	// every server's resources by the three tools' names.
	Parent *Set
	// AuthDir is the folder of the OAuth tokens `agent-ls mcp login`
	// stored (TokenStore); "" uses none.
	AuthDir string
}

// SourceName is the registry source of the server named name.
func SourceName(name string) string { return "mcp:" + name }

// Set is a set of MCP servers started together and offering their tools
// through one registry. A Set may serve any number of sessions.
type Set struct {
	opts    Options
	log     *slog.Logger
	servers []*server

	startOnce sync.Once
	ctx       context.Context // the servers' lifetime
	cancel    context.CancelFunc

	mu    sync.Mutex // guards names
	names *names

	resMu sync.Mutex // serialises changes of the resource tools

	roots *rootsState // offered to the servers (roots.go)
}

// NewSet checks the configs and returns the set of their servers, not
// started. Two servers with one name are an error.
func NewSet(cfgs []ServerConfig, opts Options) (*Set, error) {
	if opts.Registry == nil {
		return nil, errors.New("mcp: no tool registry")
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Environ == nil {
		opts.Environ = os.Environ
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Set{opts: opts, log: opts.Logger, ctx: ctx, cancel: cancel, names: newNames(), roots: &rootsState{}}
	var errs []error
	seen := map[string]bool{}
	for _, c := range cfgs {
		if err := c.Validate(); err != nil {
			errs = append(errs, err)
			continue
		}
		if seen[c.Name] {
			errs = append(errs, fmt.Errorf("MCP server %q: configured twice", c.Name))
			continue
		}
		seen[c.Name] = true
		s.servers = append(s.servers, newServer(s, c))
	}
	if err := errors.Join(errs...); err != nil {
		cancel()
		return nil, err
	}
	slices.SortFunc(s.servers, func(a, b *server) int { return strings.Compare(a.cfg.Name, b.cfg.Name) })
	return s, nil
}

// Empty reports whether the set has no server.
func (s *Set) Empty() bool { return s == nil || len(s.servers) == 0 }

// Start starts every server in the background, all at once; later calls
// do nothing. It never blocks.
func (s *Set) Start() {
	if s.Empty() {
		return
	}
	s.startOnce.Do(func() {
		for _, srv := range s.servers {
			go srv.firstStart()
		}
	})
}

// Ready waits until every server has finished its first start (running,
// or failed within its startup timeout) and no tools/list a server asked
// for is still under way, or until ctx ends. A server that needed a login
// and has a token stored since is started again first (revive).
func (s *Set) Ready(ctx context.Context) {
	if s.Empty() {
		return
	}
	for _, srv := range s.servers {
		srv.ready(ctx)
		srv.revive(ctx)
	}
}

// Status returns every server's status, sorted by name.
func (s *Set) Status() []Status {
	if s.Empty() {
		return nil
	}
	out := make([]Status, 0, len(s.servers))
	for _, srv := range s.servers {
		out = append(out, srv.status())
	}
	return out
}

// Close stops every server and removes their tools, and the resource
// tools, from the registry.
func (s *Set) Close() {
	if s.Empty() {
		return
	}
	s.cancel()
	var wg sync.WaitGroup
	for _, srv := range s.servers {
		wg.Go(srv.close)
	}
	wg.Wait()
	s.withdrawResourceTools()
}

// toolName returns the model name of server's tool.
func (s *Set) toolName(server, tool string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.names.name(toolKey{server, tool})
}

// releaseNames forgets the names of server's tools not in keep.
func (s *Set) releaseNames(server string, keep map[string]bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.names.release(server, keep)
}
