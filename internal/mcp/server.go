package mcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/agent-ls/agent-ls/internal/tools"
)

// MaxFailures is how many failures in a row (a start, a crash, a
// timeout) give a server up for the rest of the set's life.
const MaxFailures = 3

// Bounds on what a server may offer.
const (
	maxTools          = 500
	maxDescriptionLen = 8 << 10
)

// backoff is how long a server that failed n times in a row rests before
// it is started again.
func backoff(n int) time.Duration {
	if n <= 0 {
		return 0
	}
	return min(500*time.Millisecond<<(n-1), 30*time.Second)
}

// server is one configured MCP server and its connection, if any.
type server struct {
	set    *Set
	cfg    ServerConfig
	log    *slog.Logger
	stderr tail
	// started is closed when the first start has ended, either way.
	started chan struct{}

	mu       sync.Mutex
	state    State
	err      error
	conn     *conn         // nil when not running
	starting chan struct{} // closed when the (re)start under way ends
	// toolsList runs the tools/list a list_changed asks for.
	toolsList relister
	offered   []string // the server's own names of the tools registered
	failures  int      // in a row
	failedAt  time.Time
	// tokenSeen is the stored token's file when the server last needed
	// a login (nil: none): revive looks for another.
	tokenSeen os.FileInfo
	disabled  bool
	resources bool // its last handshake advertised resources
	prompts   promptState

	calls inflight // the calls under way, whose questions go to their session
}

func newServer(s *Set, cfg ServerConfig) *server {
	return &server{set: s, cfg: cfg, log: s.log.With("mcp_server", cfg.Name), started: make(chan struct{}), state: StateStarting}
}

// conn is one running connection to the server.
type conn struct {
	cl        *client
	proc      *process    // a stdio server's process
	transport string      // a url server's: TransportStreamableHTTP or TransportSSE
	auth      *storedAuth // a url server's stored OAuth token, if it uses one
}

// processState is how a stdio server's process ended; nil while it runs
// or for a server over HTTP.
func (c *conn) processState() *os.ProcessState {
	if c.proc == nil {
		return nil
	}
	return c.proc.state()
}

func (c *conn) close() {
	if c.proc != nil {
		// A stuck or crashed server gets no grace: its whole process
		// group goes first, then it is reaped.
		c.proc.kill()
	}
	if c.cl != nil {
		c.cl.close()
	}
	if c.proc != nil {
		c.proc.closePipes()
		c.proc.wait()
	}
}

// firstStart is the server's start when the set starts.
func (s *server) firstStart() {
	defer close(s.started)
	s.mu.Lock()
	done := make(chan struct{})
	s.starting = done
	s.mu.Unlock()
	err := s.connect()
	s.mu.Lock()
	s.starting = nil
	close(done)
	s.mu.Unlock()
	if err != nil {
		s.failed(err, nil)
	}
}

// ready waits for the first start and for refreshes under way.
func (s *server) ready(ctx context.Context) {
	select {
	case <-s.started:
	case <-ctx.Done():
		return
	}
	s.mu.Lock()
	ch := s.toolsList.running
	s.mu.Unlock()
	if ch != nil {
		select {
		case <-ch:
		case <-ctx.Done():
		}
	}
}

// connect starts the server and registers its tools, within its startup
// timeout.
func (s *server) connect() error {
	ctx, cancel := context.WithTimeout(s.set.ctx, s.cfg.startupTimeout())
	defer cancel()
	c, err := s.dial(ctx)
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("did not start within %s (startup_timeout_sec): %w", s.cfg.startupTimeout(), err)
		}
		return err
	}
	if err := s.listTools(ctx, c); err != nil {
		c.close()
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("did not list its tools within %s (startup_timeout_sec): %w", s.cfg.startupTimeout(), err)
		}
		return err
	}
	s.mu.Lock()
	if s.set.ctx.Err() != nil {
		s.mu.Unlock()
		c.close()
		return errors.New("the server set was closed")
	}
	s.conn, s.state, s.err = c, StateReady, nil
	s.resources = c.cl.hasResources()
	s.mu.Unlock()
	s.listPrompts(ctx, c)
	s.set.offerResourceTools()
	s.log.Info("MCP server ready", "tools", len(s.status().Tools))
	return nil
}

// dial starts the connection and makes the MCP handshake.
func (s *server) dial(ctx context.Context) (*conn, error) {
	cn := &conn{}
	ctx = withElicitation(ctx, s.elicit)
	serverLog := &floodLog{log: s.log}
	h := s.hooks(cn)
	var cl *client
	var err error
	if s.cfg.Stdio() {
		p, perr := s.startProcess()
		if perr != nil {
			return nil, perr
		}
		cn.proc = p
		tr := p.transport(serverLog, max(s.cfg.startupTimeout(), s.cfg.toolTimeout()))
		cl, err = connectClient(ctx, tr, s.set.opts.ClientVersion, serverLog, h)
	} else {
		cl, cn.transport, err = s.connectHTTP(ctx, cn, serverLog, h)
	}
	if err != nil {
		cn.close()
		if ps := cn.processState(); ps != nil && ps.Exited() {
			return nil, fmt.Errorf("the server exited at startup (%s; its stderr says why): %w", ps, err)
		}
		if errors.Is(err, ErrNeedsLogin) {
			return nil, err
		}
		return nil, fmt.Errorf("initialize: %w", err)
	}
	cn.cl = cl
	return cn, nil
}

// listTools asks the server for its tools and puts those offered in the
// registry, in place of the ones it offered before. A tool the registry
// cannot take (a schema that loops or is too large) is left out and
// logged; the others are offered.
func (s *server) listTools(ctx context.Context, cn *conn) error {
	list, err := listAll(ctx, cn.cl)
	switch {
	case err != nil && !cn.cl.hasTools() && !isTransportError(err):
		// A server of resources only, which need not answer tools/list.
		list = nil
	case err != nil:
		return fmt.Errorf("tools/list: %w", err)
	}
	src := tools.Source{Name: SourceName(s.cfg.Name), External: true}
	var hs []tools.Handler
	keep := map[string]bool{}
	for _, t := range list {
		if !s.cfg.offers(t.Name) || keep[t.Name] {
			continue
		}
		h, err := s.newTool(t)
		if err == nil {
			err = tools.Check(src, h)
		}
		if err != nil {
			s.log.Warn("MCP server: tool left out", "tool", t.Name, "err", err)
			continue
		}
		keep[t.Name] = true
		hs = append(hs, h)
	}
	if err := s.set.opts.Registry.Replace(src, hs...); err != nil {
		return fmt.Errorf("register tools: %w", err)
	}
	s.set.releaseNames(s.cfg.Name, keep)
	names := make([]string, 0, len(hs))
	for _, h := range hs {
		names = append(names, h.(*tool).name)
	}
	slices.Sort(names)
	s.mu.Lock()
	s.offered = names
	s.mu.Unlock()
	return nil
}

// toolsChanged reacts to notifications/tools/list_changed from cn: the
// tools are listed again in the background (the notification arrives on
// the connection's reading goroutine, which the answer needs); see
// relistLocked.
func (s *server) toolsChanged(cn *conn) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.relistLocked(cn, &s.toolsList, func(ctx context.Context, cn *conn) {
		if err := s.listTools(ctx, cn); err != nil {
			s.log.Warn("MCP server: listing the changed tools failed", "err", err)
		}
	})
}

// relister runs the listings that a list_changed asks for: one at a time,
// and one more after it for the notifications that came meanwhile,
// however many they are.
type relister struct {
	// running is closed when the listings end; nil while none runs.
	running chan struct{}
	again   bool
}

// relistLocked starts r's listings of cn in the background, or asks the
// running ones for one more. s.mu is held.
func (s *server) relistLocked(cn *conn, r *relister, list func(context.Context, *conn)) {
	if s.conn != nil && s.conn != cn {
		return
	}
	if r.running != nil {
		r.again = true
		return
	}
	r.running = make(chan struct{})
	go s.relist(cn, r, list)
}

// relist runs list on cn until no list_changed came during the last
// listing.
func (s *server) relist(cn *conn, r *relister, list func(context.Context, *conn)) {
	for {
		// A notification may come while the connection is still being
		// set up: its listing waits for the start to end.
		s.mu.Lock()
		starting := s.starting
		s.mu.Unlock()
		if starting != nil {
			select {
			case <-starting:
			case <-s.set.ctx.Done():
			}
		}
		s.mu.Lock()
		current := s.conn == cn
		r.again = false
		s.mu.Unlock()
		if current {
			ctx, cancel := context.WithTimeout(s.set.ctx, s.cfg.startupTimeout())
			list(ctx, cn)
			cancel()
		}
		s.mu.Lock()
		if !r.again || s.conn != cn {
			close(r.running)
			r.running = nil
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
	}
}

// client returns the running connection, starting the server again if
// it stopped (after its backoff), or why it cannot.
func (s *server) client(ctx context.Context) (*conn, error) {
	for {
		s.mu.Lock()
		switch {
		case s.disabled:
			err := s.err
			s.mu.Unlock()
			return nil, err
		case s.conn != nil:
			c := s.conn
			s.mu.Unlock()
			return c, nil
		case s.starting != nil:
			ch := s.starting
			s.mu.Unlock()
			select {
			case <-ch:
				s.mu.Lock()
				c, err := s.conn, s.err
				s.mu.Unlock()
				if c == nil && err != nil {
					return nil, err
				}
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		failures := s.failures
		wait := backoff(failures) - time.Since(s.failedAt)
		done := make(chan struct{})
		s.starting, s.state = done, StateStarting
		s.mu.Unlock()

		err := sleep(ctx, wait)
		if err == nil {
			s.log.Info("MCP server: starting again", "failures", failures)
			err = s.connect()
		}
		s.mu.Lock()
		s.starting = nil
		close(done)
		s.mu.Unlock()
		if err != nil {
			if ctx.Err() != nil {
				s.mu.Lock()
				s.state = StateFailed
				s.mu.Unlock()
				return nil, ctx.Err()
			}
			return nil, s.failed(fmt.Errorf("could not be started again: %w", err), nil)
		}
	}
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// failed records a failure of the server (of connection cn, if not nil:
// a crash or a timeout of a call), stops that connection and, at the
// MaxFailures-th failure in a row, gives the server up: its tools are
// withdrawn and the user is told. It returns the error a caller reports.
func (s *server) failed(err error, cn *conn) error {
	if errors.Is(err, ErrNeedsLogin) {
		return s.needsLogin(err, cn)
	}
	s.mu.Lock()
	if cn != nil && s.conn != cn {
		// Another call already reported this connection.
		s.mu.Unlock()
		return err
	}
	if s.conn != nil {
		cn = s.conn
		s.conn = nil
	}
	s.failures++
	s.failedAt = time.Now()
	s.state, s.err = StateFailed, err
	first := s.failures == 1 && !isStarted(s.started)
	disable := s.failures >= MaxFailures && !s.disabled
	if disable {
		s.disabled = true
		s.err = fmt.Errorf("disabled for this session after %d failures in a row; the last: %w", s.failures, err)
	}
	final, failures := s.err, s.failures
	s.mu.Unlock()
	if cn != nil {
		cn.close()
	}
	s.log.Info("MCP server failed", "err", err, "failures", failures)
	if disable {
		s.set.opts.Registry.Unregister(SourceName(s.cfg.Name))
		s.set.releaseNames(s.cfg.Name, nil)
		s.mu.Lock()
		s.offered = nil
		s.mu.Unlock()
		s.setPrompts([]Prompt{})
		s.set.offerResourceTools()
	}
	if (first || disable) && s.set.opts.Failed != nil {
		s.set.opts.Failed(s.cfg.Name, final)
	}
	return final
}

// isStarted reports whether ch is closed.
func isStarted(ch chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// succeeded records a call that went through: the failures in a row start
// again from zero.
func (s *server) succeeded() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failures = 0
}

func (s *server) status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := Status{Name: s.cfg.Name, State: s.state, Tools: slices.Clone(s.offered), Stdio: s.cfg.Stdio()}
	if st.Tools == nil {
		st.Tools = []string{}
	}
	if s.err != nil && (s.state == StateFailed || s.state == StateNeedsLogin) {
		st.Error = s.err.Error()
	}
	if st.Stdio {
		st.StderrTail = s.stderr.Lines()
	}
	if s.conn != nil {
		st.Transport = s.conn.transport
	}
	return st
}

// close stops the server; the set's context is cancelled already. A
// start under way ends with it (the context kills the process group),
// and is waited for, so that no process outlives agent-ls.
func (s *server) close() {
	s.mu.Lock()
	starting := s.starting
	s.mu.Unlock()
	if starting != nil {
		select {
		case <-starting:
		case <-time.After(10 * time.Second):
			s.log.Warn("MCP server: a start did not end after the stop")
		}
	}
	s.mu.Lock()
	cn := s.conn
	s.conn = nil
	s.mu.Unlock()
	if cn != nil {
		cn.close()
	}
	s.set.opts.Registry.Unregister(SourceName(s.cfg.Name))
}
