package agent

import (
	"context"
	"fmt"
	"sync"

	"github.com/agent-ls/agent-ls/internal/event"
	"github.com/agent-ls/agent-ls/internal/policy"
	"github.com/agent-ls/agent-ls/internal/tools"
)

// session is one conversation. Its history is touched only by the turn
// goroutine; the mutex guards the running turn and the event sequence.
type session struct {
	mgr *Manager
	// opts are what the session chose itself when it started; the rest
	// of its settings follow the manager's defaults, from turn to turn.
	opts SessionOptions
	// sessionSettings are what the session runs with: info (its model,
	// provider and policies), cfg (the defaults they came from), the
	// model client and the boundary (what is inside the project, what may
	// be written without asking). They change only between turns, under
	// mu, when the defaults have changed (see refresh).
	sessionSettings
	// changed: the settings changed since the model was last told; the
	// next turn tells it.
	changed bool

	mu      sync.Mutex
	running *turn
	// queue holds the prompts that wait for the running turn to end and
	// the steers it has yet to take (queue.go, steer.go).
	queue promptQueue
	// planned: a turn in plan mode completed since plan mode began, so
	// there is a plan to approve (plan.go).
	planned bool
	// usage is the session's token use so far.
	usage event.UsageTotal
	// rateLimits are the provider's limits left after its last answer
	// that reported them (limits_warning.go).
	rateLimits *event.RateLimits
	// reported is what the model last said the context holds: the
	// tokens of its last request and answer, and how many history items
	// they covered (the turn's goroutine alone uses it).
	reported struct {
		tokens int64
		items  int
	}
	turns int
	// undo keeps what the latest turns changed, for agent/undoTurn.
	undo *undoStore
	// checkpoints keep what agent/rewind needs (checkpoints.go).
	checkpoints *checkpoints
	// sockets records the Unix sockets the session's sandboxed commands
	// bind, and holds the loopback network they share with the network
	// off: a server one command starts, on a Unix socket in the
	// workspace or on 127.0.0.1, is reached by the next. Closing it with
	// the session releases that network.
	sockets *tools.SocketRegistry
	// net is the session's network proxy (network.go).
	net sessionNet
	// terminals are the command sessions exec_command started: they
	// live across turns and end with the session.
	terminals *tools.Terminals
	// notes are what the model learns before its next request about
	// command sessions that ended by the user's hand or a stricter
	// policy; interruptedTerminals: a turn was interrupted while some
	// ran (terminal_control.go).
	notes                []string
	interruptedTerminals bool

	emitMu sync.Mutex
	seq    int64

	history History

	approvals approvalStore
	// obs keeps the session's record (noObserver when none is kept).
	obs Observer
}

// execConfig is how the session's commands run: the same sandbox
// settings its boundary was built with.
func (s *session) execConfig(helperPath string) tools.ExecConfig {
	return tools.ExecConfig{HelperPath: helperPath, Network: s.cfg.NetworkAccess, Env: s.cfg.ShellEnvironmentPolicy,
		ExcludeTmpdirEnvVar: s.cfg.ExcludeTmpdirEnvVar, ExcludeSlashTmp: s.cfg.ExcludeSlashTmp, CacheRoot: s.cfg.CacheRoot,
		Sockets: s.sockets, AllowProjectSockets: s.cfg.AllowProjectSockets, Proxy: s.proxyFor()}
}

// toolSnapshot is what the next model request offers and its calls run
// against: the registry's tools and the session's own, once the sources
// still starting are ready (or ctx ends), without the tools turned off.
// Called from the turn.
func (s *session) toolSnapshot(ctx context.Context) *tools.Snapshot {
	opts := s.mgr.opts
	if opts.ToolSources != nil {
		opts.ToolSources.Start()
		opts.ToolSources.Ready(ctx)
	}
	snap := opts.Tools.Snapshot()
	if s.tools != nil {
		s.tools.Start()
		s.tools.Ready(ctx)
		snap = snap.With(s.tools.Snapshot())
	}
	return s.languageTools(s.execTools(snap.Without(s.cfg.DisabledTools...)))
}

// busy returns the running turn, if any; a turn that is only left to
// report its end is waited for, since its turnCompleted may already have
// reached the client. Called with s.mu held; it may release it while it
// waits.
func (s *session) busy() *turn {
	for s.running != nil {
		t := s.running
		select {
		case <-t.ending:
			s.mu.Unlock()
			<-t.done
			s.mu.Lock()
		default:
			return t
		}
	}
	return nil
}

// startTurn starts a turn of in, or, with compactOnly, a turn that only
// compacts the history.
func (s *session) startTurn(in TurnInput, compactOnly bool) (*Turn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.busy() != nil {
		return nil, fmt.Errorf("%w (turn %s); interrupt it or wait for it to finish", ErrTurnRunning, s.running.id)
	}
	return s.launch(in, compactOnly, "", nil)
}

// launch starts a turn of in under id ("" numbers a new one); a prompt's
// turn lets a paused queue go on after it. When the turn ends, what
// follows it is decided (afterTurn), and w (a queued prompt's sender, or
// nil) is told how it ended. Called with s.mu held and no turn running.
func (s *session) launch(in TurnInput, compactOnly bool, id string, w *waiter) (*Turn, error) {
	if compactOnly && !s.hasConversation() {
		return nil, ErrNothingToCompact
	}
	if err := s.refresh(); err != nil {
		return nil, err
	}
	var readOnly *policy.Boundary // a turn in plan mode's
	if !compactOnly && s.info.Mode == ModePlan {
		b, err := s.readOnlyBoundary()
		if err != nil {
			return nil, err
		}
		readOnly = b
	}
	if id == "" {
		id = s.nextTurnID()
	}
	ctx, cancel := context.WithCancel(context.Background())
	t := &turn{
		s:        s,
		id:       id,
		input:    in,
		cancel:   cancel,
		done:     make(chan struct{}),
		ending:   make(chan struct{}),
		promptAt: -1,
	}
	if readOnly != nil {
		t.plan, t.readOnly = true, readOnly
	}
	s.running = t
	if !compactOnly {
		s.unpause(t.id)
	}
	go func() {
		defer close(t.done)
		if compactOnly {
			t.runCompaction(ctx)
		} else {
			t.run(ctx)
		}
		s.beforeQueued(t)
		s.mu.Lock()
		s.running = nil
		s.planEnded(t)
		s.afterTurn(t)
		s.mu.Unlock()
		cancel()
		w.end(t.result)
		for _, sw := range t.steered {
			sw.end(t.result)
		}
	}()
	return NewTurn(t.id, t.done, &t.result), nil
}

// hasConversation reports whether the history holds more than its
// context items. Called with no turn running.
func (s *session) hasConversation() bool {
	for _, it := range s.history.Items() {
		if !isContextItem(&it) {
			return true
		}
	}
	return false
}

// refresh takes the manager's defaults if they changed since the session
// settled its settings. Called with s.mu held and no turn running.
func (s *session) refresh() error {
	if _, gen := s.mgr.current(); gen == s.generation {
		return nil
	}
	st, err := s.mgr.settle(s.info.SessionID, s.opts)
	if err != nil {
		return fmt.Errorf("the new settings cannot apply to session %s: %w", s.info.SessionID, err)
	}
	s.adopt(st)
	return nil
}

func (s *session) interrupt(turnID string) error {
	s.mu.Lock()
	t := s.running
	s.mu.Unlock()
	if t == nil || (turnID != "" && turnID != t.id) {
		if turnID != "" {
			return fmt.Errorf("%w: turn %s is not running", ErrNoTurn, turnID)
		}
		return ErrNoTurn
	}
	t.interrupted.Store(true)
	t.cancel()
	<-t.done
	return nil
}

// emit delivers one event of turn turnID with the next sequence number.
// Holding emitMu across the frontend call keeps delivery in seq order when
// parallel tools emit at once.
func (s *session) emit(turnID string, p event.Payload) {
	s.emitMu.Lock()
	defer s.emitMu.Unlock()
	s.seq++
	ev := event.Event{SessionID: s.info.SessionID, TurnID: turnID, Seq: s.seq, Payload: p}
	s.obs.Event(ev)
	s.mgr.opts.Frontend.Event(ev)
}
