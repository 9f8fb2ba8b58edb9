package lsp

import (
	"context"
	"errors"
	"sync"

	"github.com/agent-ls/agent-ls/internal/agent"
	"github.com/agent-ls/agent-ls/internal/event"
)

// conversations is what the language server remembers about the
// conversations of its editor: which session is the workspace's current one
// (protocol section 7.1), and which turns are running. The agent knows
// sessions; "current" is a notion of this frontend, where a code action has
// no other way to name the conversation it continues.
type conversations struct {
	mu      sync.Mutex
	current string
	running map[string]string // session → running turn
	ended   map[string]string // session → the turn that ended last

	// lookMu serialises the search for the workspace's last session
	// (currentSession); looked: it was searched for, or this connection
	// started a session of its own, which the search would find.
	lookMu sync.Mutex
	looked bool
}

func newConversations() *conversations {
	return &conversations{running: make(map[string]string), ended: make(map[string]string)}
}

// Current returns the current session, "" if there is none yet.
func (c *conversations) Current() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current
}

func (c *conversations) setCurrent(session string) {
	c.mu.Lock()
	c.current = session
	c.mu.Unlock()
}

// started records a turn the agent accepted. The turnStarted event records
// it too; whichever comes first wins, so a code action asked for right
// after the command already offers Stop.
func (c *conversations) started(session, turn string) {
	c.mu.Lock()
	if c.ended[session] != turn { // a quick turn may be over already
		c.running[session] = turn
	}
	c.mu.Unlock()
}

// observe follows the turns through their events.
func (c *conversations) observe(ev event.Event) {
	switch ev.Payload.(type) {
	case event.TurnStarted:
		c.started(ev.SessionID, ev.TurnID)
	case event.TurnCompleted:
		c.mu.Lock()
		if c.running[ev.SessionID] == ev.TurnID {
			delete(c.running, ev.SessionID)
		}
		c.ended[ev.SessionID] = ev.TurnID
		c.mu.Unlock()
	}
}

// Running returns the sessions with a running turn.
func (c *conversations) Running() map[string]string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]string, len(c.running))
	for s, t := range c.running {
		out[s] = t
	}
	return out
}

// interruptAll stops every running turn of this editor (agent.interrupt
// with no arguments) and returns once they have ended and their ends have
// been reported, or ctx is done.
func (s *server) interruptAll(ctx context.Context) (any, error) {
	a, err := s.theAgent()
	if err != nil {
		return nil, err
	}
	running := s.convs.Running()
	done := make(chan error, len(running))
	for session, turn := range running {
		go func() { done <- a.Interrupt(session, turn) }()
	}
	var errs []error
	for range running {
		select {
		case err := <-done:
			// A turn that ended on its own meanwhile is what the user
			// wanted.
			if err != nil && !errors.Is(err, agent.ErrNoTurn) {
				errs = append(errs, err)
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, agentError(err)
	}
	// The turns' ends go out before the answer (see beginTurn).
	if err := s.out.drained(ctx); err != nil {
		return nil, err
	}
	return struct{}{}, nil
}
